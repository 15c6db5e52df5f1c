package io.switchboard.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * One named broker instance, {@code switchboard.instances.<name>.*}: its type, the connection
 * settings of that type, and properties passed to the adapter and its native client. Two instances
 * may have the same type (two Kafka clusters as A and B).
 */
public class InstanceProperties {

    /** The broker type, the adapter id: kafka, rabbitmq, rocketmq or memory (or a third-party adapter's id). */
    private String type;

    /** Kafka: the brokers to connect to, host:port (kafka.bootstrap.servers). */
    private List<String> bootstrapServers = new ArrayList<>();

    /** RabbitMQ: the server as an AMQP URI, amqp://user:password@host:5672/vhost; wins over host, port, username, password and virtual-host. */
    private String uri;

    /** RabbitMQ: host, when no uri is given [127.0.0.1]. */
    private String host;

    /** RabbitMQ: AMQP port, when no uri is given [5672, or 5671 with amqps]. */
    private Integer port;

    /** RabbitMQ: user name, when no uri is given [guest]. */
    private String username;

    /** RabbitMQ: password, when no uri is given [guest]; never logged or shown. */
    private String password;

    /** RabbitMQ: virtual host, when no uri is given [/]. */
    private String virtualHost;

    /** RabbitMQ: connect with TLS (amqps), when no uri is given. */
    private boolean ssl;

    /** RocketMQ: name server address(es), host:port;host:port (rocketmq.namesrv-addr). */
    private String nameServer;

    /**
     * Properties of the adapter and its native client. A key starting with the type (kafka.,
     * rabbitmq., rocketmq., memory.) or with switchboard. is passed as it is; any other key gets
     * the type in front: linger.ms on a kafka instance is kafka.linger.ms.
     */
    private Map<String, String> properties = new LinkedHashMap<>();

    /** Resilience4j policies on publishing to this instance; override switchboard.resilience.*. */
    @NestedConfigurationProperty
    private final ResilienceProperties resilience = new ResilienceProperties();

    /** {@return the broker type, the adapter id: kafka, rabbitmq, rocketmq or memory (or a third-party adapter's id)} */
    public String getType() {
        return type;
    }

    /**
     * Sets {@link #getType()}.
     *
     * @param type the value to set
     */
    public void setType(String type) {
        this.type = type;
    }

    /** {@return for Kafka: the brokers to connect to, host:port (kafka.bootstrap.servers)} */
    public List<String> getBootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Sets {@link #getBootstrapServers()}.
     *
     * @param bootstrapServers the value to set
     */
    public void setBootstrapServers(List<String> bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** {@return for RabbitMQ: the server as an AMQP URI, amqp://user:password@host:5672/vhost; wins over host, port, username, password and virtual-host} */
    public String getUri() {
        return uri;
    }

    /**
     * Sets {@link #getUri()}.
     *
     * @param uri the value to set
     */
    public void setUri(String uri) {
        this.uri = uri;
    }

    /** {@return for RabbitMQ: host, when no uri is given [127.0.0.1]} */
    public String getHost() {
        return host;
    }

    /**
     * Sets {@link #getHost()}.
     *
     * @param host the value to set
     */
    public void setHost(String host) {
        this.host = host;
    }

    /** {@return for RabbitMQ: AMQP port, when no uri is given [5672, or 5671 with amqps]} */
    public Integer getPort() {
        return port;
    }

    /**
     * Sets {@link #getPort()}.
     *
     * @param port the value to set
     */
    public void setPort(Integer port) {
        this.port = port;
    }

    /** {@return for RabbitMQ: user name, when no uri is given [guest]} */
    public String getUsername() {
        return username;
    }

    /**
     * Sets {@link #getUsername()}.
     *
     * @param username the value to set
     */
    public void setUsername(String username) {
        this.username = username;
    }

    /** {@return for RabbitMQ: password, when no uri is given [guest]; never logged or shown} */
    public String getPassword() {
        return password;
    }

    /**
     * Sets {@link #getPassword()}.
     *
     * @param password the value to set
     */
    public void setPassword(String password) {
        this.password = password;
    }

    /** {@return for RabbitMQ: virtual host, when no uri is given [/]} */
    public String getVirtualHost() {
        return virtualHost;
    }

    /**
     * Sets {@link #getVirtualHost()}.
     *
     * @param virtualHost the value to set
     */
    public void setVirtualHost(String virtualHost) {
        this.virtualHost = virtualHost;
    }

    /** {@return for RabbitMQ: whether to connect with TLS (amqps), when no uri is given} */
    public boolean isSsl() {
        return ssl;
    }

    /**
     * Sets {@link #isSsl()}.
     *
     * @param ssl the value to set
     */
    public void setSsl(boolean ssl) {
        this.ssl = ssl;
    }

    /** {@return for RocketMQ: name server address(es), host:port;host:port (rocketmq.namesrv-addr)} */
    public String getNameServer() {
        return nameServer;
    }

    /**
     * Sets {@link #getNameServer()}.
     *
     * @param nameServer the value to set
     */
    public void setNameServer(String nameServer) {
        this.nameServer = nameServer;
    }

    /** {@return properties of the adapter and its native client. A key starting with the type (kafka., rabbitmq., rocketmq., memory.) or with switchboard. is passed as it is; any other key gets the type in front: linger.ms on a kafka instance is kafka.linger.ms} */
    public Map<String, String> getProperties() {
        return properties;
    }

    /**
     * Sets {@link #getProperties()}.
     *
     * @param properties the value to set
     */
    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    /** {@return resilience4j policies on publishing to this instance; override switchboard.resilience.*} */
    public ResilienceProperties getResilience() {
        return resilience;
    }

    /** Never prints connection secrets. */
    @Override
    public String toString() {
        return "InstanceProperties[type=" + type + "]";
    }
}
