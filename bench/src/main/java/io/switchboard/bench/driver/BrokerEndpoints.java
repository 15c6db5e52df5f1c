package io.switchboard.bench.driver;

/**
 * Where the brokers are.
 *
 * @param kafkaBootstrap Kafka bootstrap servers, or null when Kafka is not available
 * @param rabbitUri the AMQP URI of RabbitMQ (credentials included), or null
 * @param rocketMqNameServer the RocketMQ name server address ({@code host:port}), or null
 */
public record BrokerEndpoints(String kafkaBootstrap, String rabbitUri, String rocketMqNameServer) {

    /** Where the given broker is, or null when it is not available (memory is always available). */
    public String of(String broker) {
        return switch (broker) {
            case "kafka" -> kafkaBootstrap;
            case "rabbitmq" -> rabbitUri;
            case "rocketmq" -> rocketMqNameServer;
            default -> "in-process";
        };
    }
}
