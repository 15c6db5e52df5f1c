package io.switchboard.spring.internal;

import io.switchboard.spi.BrokerConfig;
import io.switchboard.spring.BrokerInstanceMapper;
import io.switchboard.spring.InstanceProperties;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The starter's {@link BrokerInstanceMapper}s, one per adapter it knows. */
public final class BrokerMappers {

    private BrokerMappers() {}

    static String property(String instanceName, String setting) {
        return "switchboard.instances." + instanceName + "." + setting;
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    /**
     * Puts a typed connection setting (when set) under the adapter's key, then requires that key,
     * which the instance's properties map may have given instead.
     */
    private static void required(Map<String, String> adapterProperties, String key, String value, String instanceName,
            String setting, String need, String example) {
        if (!blank(value)) {
            adapterProperties.put(key, value.trim());
        }
        if (blank(adapterProperties.get(key))) {
            String property = property(instanceName, setting);
            throw new InvalidSwitchboardPropertyException(property, null, need, "Set " + property + " to " + example);
        }
    }

    /** Kafka: {@code bootstrap-servers} is {@code kafka.bootstrap.servers}, which is required. */
    public static final class Kafka implements BrokerInstanceMapper {
        @Override
        public String type() {
            return "kafka";
        }

        @Override
        public void contribute(String instanceName, InstanceProperties instance, Map<String, String> adapterProperties) {
            String servers = instance.getBootstrapServers().stream().map(String::trim).filter(s -> !s.isEmpty())
                    .collect(Collectors.joining(","));
            required(adapterProperties, "kafka.bootstrap.servers", servers, instanceName, "bootstrap-servers",
                    "a kafka instance needs the address of at least one Kafka broker",
                    "host:port of your brokers, for example localhost:9092");
        }
    }

    /**
     * RabbitMQ: {@code uri}, or {@code host}, {@code port}, {@code username}, {@code password},
     * {@code virtual-host} and {@code ssl} composed into one, is {@code rabbitmq.uri}; without any,
     * the adapter's default (the local server as guest).
     */
    public static final class Rabbit implements BrokerInstanceMapper {
        @Override
        public String type() {
            return "rabbitmq";
        }

        @Override
        public void contribute(String instanceName, InstanceProperties instance, Map<String, String> adapterProperties) {
            if (!blank(instance.getUri())) {
                adapterProperties.put("rabbitmq.uri", checked(instanceName, instance.getUri().trim()));
            } else if (hasParts(instance)) {
                adapterProperties.put("rabbitmq.uri", compose(instance));
            }
        }

        private static boolean hasParts(InstanceProperties i) {
            return i.getHost() != null || i.getPort() != null || i.getUsername() != null || i.getPassword() != null
                    || i.getVirtualHost() != null || i.isSsl();
        }

        private static String compose(InstanceProperties i) {
            String scheme = i.isSsl() ? "amqps" : "amqp";
            int port = i.getPort() != null ? i.getPort() : (i.isSsl() ? 5671 : 5672);
            String user = i.getUsername() != null ? i.getUsername() : "guest";
            String password = i.getPassword() != null ? i.getPassword() : "guest";
            String host = i.getHost() != null ? i.getHost().trim() : "127.0.0.1";
            String vhost = i.getVirtualHost() == null || i.getVirtualHost().equals("/") ? "" : encode(i.getVirtualHost());
            return scheme + "://" + encode(user) + ":" + encode(password) + "@" + host + ":" + port + "/" + vhost;
        }

        private static String encode(String part) {
            return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
        }

        private static String checked(String instanceName, String uri) {
            try {
                URI parsed = new URI(uri);
                String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
                if ((scheme.equals("amqp") || scheme.equals("amqps")) && parsed.getHost() != null) {
                    return uri;
                }
            } catch (URISyntaxException e) {
                // reported below, without the parser's message: it would quote the password
            }
            throw new InvalidSwitchboardPropertyException(property(instanceName, "uri"), BrokerConfig.printable("uri", uri),
                    "not an AMQP URI", "Write it as amqp://user:password@host:5672/vhost (amqps:// for TLS), or set "
                            + "host, port, username, password and virtual-host instead");
        }
    }

    /** RocketMQ: {@code name-server} is {@code rocketmq.namesrv-addr}, which is required. */
    public static final class RocketMq implements BrokerInstanceMapper {
        @Override
        public String type() {
            return "rocketmq";
        }

        @Override
        public void contribute(String instanceName, InstanceProperties instance, Map<String, String> adapterProperties) {
            required(adapterProperties, "rocketmq.namesrv-addr", instance.getNameServer(), instanceName, "name-server",
                    "a rocketmq instance needs the address of its name server",
                    "host:port, for example 127.0.0.1:9876 (several separated by ;)");
        }
    }

    /** The in-memory broker: no connection settings. */
    public static final class Memory implements BrokerInstanceMapper {
        @Override
        public String type() {
            return "memory";
        }

        @Override
        public void contribute(String instanceName, InstanceProperties instance, Map<String, String> adapterProperties) {
            // nothing to connect to
        }
    }
}
