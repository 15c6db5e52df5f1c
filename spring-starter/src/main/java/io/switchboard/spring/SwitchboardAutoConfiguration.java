package io.switchboard.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.switchboard.Codec;
import io.switchboard.Switchboard;
import io.switchboard.spring.internal.BrokerMappers;
import io.switchboard.spring.internal.DefaultCodecResolver;
import io.switchboard.spring.internal.DefaultPollers;
import io.switchboard.spring.internal.DefaultPublishers;
import io.switchboard.spring.internal.DefaultRequesters;
import io.switchboard.spring.internal.Jackson3JsonCodec;
import io.switchboard.spring.internal.ListenerCollector;
import io.switchboard.spring.internal.SwitchboardFactory;
import io.switchboard.spring.internal.SwitchboardLifecycle;
import io.switchboard.spring.internal.SwitchboardObservationsOutOfMeterHandler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * Switchboard from {@code application.yml}: the {@link Switchboard} bean (with Spring Boot's
 * {@code MeterRegistry} and {@code ObservationRegistry} when the application has them), the
 * {@link Publishers}, {@link Requesters} and {@link Pollers} registries, the {@link CodecResolver}, and the {@link SwitchboardListener}
 * methods subscribed in the application's lifecycle. The mapping of each adapter's connection
 * settings applies only when that adapter's jar is on the classpath. Every bean backs off when the
 * application declares its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"})
@ConditionalOnClass(Switchboard.class)
@ConditionalOnBooleanProperty(name = "switchboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(SwitchboardProperties.class)
public class SwitchboardAutoConfiguration {

    /** Collects listener methods as beans are initialised; static, as a bean post-processor must be. */
    @Bean
    static ListenerCollector switchboardListenerCollector() {
        return new ListenerCollector();
    }

    /** Keeps Boot's meter observation handler from registering a second, clashing timer per Switchboard observation. */
    @Bean
    static SwitchboardObservationsOutOfMeterHandler switchboardObservationsOutOfMeterHandler() {
        return new SwitchboardObservationsOutOfMeterHandler();
    }

    @Bean
    BrokerInstanceMapper switchboardMemoryMapper() {
        return new BrokerMappers.Memory();
    }

    @Bean
    SwitchboardFactory switchboardFactory(SwitchboardProperties properties, ObjectProvider<BrokerInstanceMapper> mappers,
            org.springframework.core.env.Environment environment) {
        return new SwitchboardFactory(properties, mappers.orderedStream().toList(), SwitchboardFactory.availableAdapters())
                .applicationName(environment.getProperty("spring.application.name"))
                .bootDistribution(bootDistributionForSwitchboard(environment));
    }

    /** Whether {@code management.metrics.distribution.{percentiles-histogram,percentiles,slo}} names a switchboard meter or {@code all}. */
    static boolean bootDistributionForSwitchboard(org.springframework.core.env.Environment environment) {
        org.springframework.boot.context.properties.bind.Binder binder =
                org.springframework.boot.context.properties.bind.Binder.get(environment);
        for (String kind : java.util.List.of("percentiles-histogram", "percentiles", "slo")) {
            java.util.Map<String, String> byMeter = binder.bind("management.metrics.distribution." + kind,
                    org.springframework.boot.context.properties.bind.Bindable.mapOf(String.class, String.class))
                    .orElse(java.util.Map.of());
            for (java.util.Map.Entry<String, String> e : byMeter.entrySet()) {
                if ((e.getKey().equals("all") || e.getKey().startsWith("switchboard")) && !"false".equalsIgnoreCase(e.getValue())) {
                    return true;
                }
            }
        }
        return false;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Switchboard switchboard(SwitchboardFactory switchboardFactory, ObjectProvider<MeterRegistry> meterRegistry,
            ObjectProvider<ObservationRegistry> observationRegistry) {
        return switchboardFactory.create(meterRegistry.getIfUnique(), observationRegistry.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    CodecResolver switchboardCodecResolver(SwitchboardProperties properties) {
        return new DefaultCodecResolver(properties, Codec::json);
    }

    @Bean
    @ConditionalOnMissingBean
    Publishers switchboardPublishers(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        return new DefaultPublishers(switchboard, properties, codecs);
    }

    @Bean
    @ConditionalOnMissingBean
    Pollers switchboardPollers(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        return new DefaultPollers(switchboard, properties, codecs);
    }

    @Bean
    @ConditionalOnMissingBean
    Requesters switchboardRequesters(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        return new DefaultRequesters(switchboard, properties, codecs);
    }

    @Bean
    @ConditionalOnMissingBean
    SwitchboardLifecycle switchboardLifecycle(Switchboard switchboard, ListenerCollector switchboardListenerCollector,
            SwitchboardProperties properties, CodecResolver codecs, SwitchboardFactory switchboardFactory) {
        return new SwitchboardLifecycle(switchboard, switchboardListenerCollector, properties, codecs,
                switchboardFactory.gates());
    }

    /** JSON through Spring Boot's Jackson 3 mapper, when the application has one and does not opt out. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    @ConditionalOnBean(JsonMapper.class)
    @ConditionalOnBooleanProperty(name = "switchboard.json.use-boot-mapper", matchIfMissing = true)
    static class BootJsonMapperCodecs {
        @Bean
        @ConditionalOnMissingBean
        CodecResolver switchboardCodecResolver(SwitchboardProperties properties, JsonMapper jsonMapper) {
            return new DefaultCodecResolver(properties, type -> new Jackson3JsonCodec<>(type, jsonMapper));
        }
    }

    /** Kafka connection settings, when the Kafka adapter is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.switchboard.kafka.KafkaAdapterFactory")
    static class KafkaMapping {
        @Bean
        BrokerInstanceMapper switchboardKafkaMapper() {
            return new BrokerMappers.Kafka();
        }
    }

    /** RabbitMQ connection settings, when the RabbitMQ adapter is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.switchboard.rabbit.RabbitAdapterFactory")
    static class RabbitMapping {
        @Bean
        BrokerInstanceMapper switchboardRabbitMapper() {
            return new BrokerMappers.Rabbit();
        }
    }

    /** RocketMQ connection settings, when the RocketMQ adapter is on the classpath. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.switchboard.rocketmq.RocketMqAdapterFactory")
    static class RocketMqMapping {
        @Bean
        BrokerInstanceMapper switchboardRocketMqMapper() {
            return new BrokerMappers.RocketMq();
        }
    }
}
