package io.switchboard.spring.internal;

import io.switchboard.spring.SwitchboardHandler;
import io.switchboard.spring.SwitchboardListener;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds {@link SwitchboardListener} methods, and classes with their {@link SwitchboardHandler} methods, on every
 * initialised bean and checks them at once, so
 * a malformed listener fails startup with its bean. It only collects: {@link SwitchboardLifecycle}
 * subscribes them once the context is refreshed.
 */
public final class ListenerCollector implements BeanPostProcessor, BeanFactoryAware {

    private final List<ListenerEndpoint> endpoints = new CopyOnWriteArrayList<>();
    private ConfigurableBeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            this.beanFactory = configurable;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(target, SwitchboardListener.class)) {
            return bean;
        }
        SwitchboardListener onClass = AnnotatedElementUtils.findMergedAnnotation(target, SwitchboardListener.class);
        if (onClass != null) {
            Map<Method, SwitchboardHandler> handlers = MethodIntrospector.selectMethods(target,
                    (MethodIntrospector.MetadataLookup<SwitchboardHandler>) method ->
                            AnnotatedElementUtils.findMergedAnnotation(method, SwitchboardHandler.class));
            Map<Method, SwitchboardHandler> invocable = new java.util.LinkedHashMap<>();
            handlers.forEach((method, annotation) -> invocable.put(AopUtils.selectInvocableMethod(method, bean.getClass()),
                    annotation));
            for (String destination : ListenerEndpoint.destinations(ClassUtils.getShortName(target), onClass, this::resolve)) {
                endpoints.add(ListenerEndpoint.ofClass(bean, target, invocable, onClass, this::resolve, destination));
            }
        }
        Map<Method, SwitchboardListener> annotated = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<SwitchboardListener>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, SwitchboardListener.class));
        annotated.forEach((method, annotation) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            for (String destination : ListenerEndpoint.destinations(ListenerEndpoint.describe(method), annotation,
                    this::resolve)) {
                endpoints.add(ListenerEndpoint.of(bean, invocable, annotation, this::resolve, destination));
            }
        });
        return bean;
    }

    private String resolve(String value) {
        return beanFactory == null || value == null ? value : beanFactory.resolveEmbeddedValue(value);
    }

    /** The listeners found so far. */
    public List<ListenerEndpoint> endpoints() {
        return List.copyOf(endpoints);
    }
}
