package io.switchboard.spring.aot;

import io.switchboard.DeliveryContext;
import io.switchboard.Message;
import io.switchboard.spi.BrokerAdapterFactory;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What Switchboard reaches at run time without a bean definition telling Spring AOT about it: the
 * adapters, found by id through {@link ServiceLoader} on {@link BrokerAdapterFactory} (the service
 * file and each factory's public constructor, for the adapters on the classpath when the
 * application is processed), and the types a listener method receives. Registered in
 * {@code META-INF/spring/aot.factories}; payload types come from {@link ListenerReflectiveProcessor}.
 */
public class SwitchboardRuntimeHints implements RuntimeHintsRegistrar {

    /** The service file {@link ServiceLoader} reads. */
    static final String SERVICE_FILE = "META-INF/services/" + BrokerAdapterFactory.class.getName();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SERVICE_FILE);
        ClassLoader loader = classLoader != null ? classLoader : SwitchboardRuntimeHints.class.getClassLoader();
        ServiceLoader.load(BrokerAdapterFactory.class, loader).stream().forEach(provider ->
                hints.reflection().registerType(provider.type(), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS));
        hints.reflection().registerType(DeliveryContext.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(Message.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    }
}
