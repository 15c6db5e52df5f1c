package io.switchboard.rocketmq;

import io.switchboard.rocketmq.internal.RocketMqAdapter;
import io.switchboard.spi.BrokerAdapter;
import io.switchboard.spi.BrokerAdapterFactory;
import io.switchboard.spi.BrokerConfig;

/**
 * Apache RocketMQ for Switchboard, adapter id {@code rocketmq}, on rocketmq-client 5.5 (the
 * remoting client: name server plus brokers).
 *
 * <pre>{@code
 * Switchboard sb = Switchboard.builder().broker("rocketmq")
 *         .property("rocketmq.namesrv-addr", "127.0.0.1:9876").build();
 * }</pre>
 *
 * <p>Subscription properties ({@code SubscriberBuilder.property}) override the instance's.
 *
 * <h2>Properties</h2>
 * <ul>
 *   <li>{@code rocketmq.namesrv-addr} (required): name server address(es), {@code host:port;host:port}.</li>
 *   <li>{@code rocketmq.producer-group}: producer group, default {@code switchboard_<instance>};
 *       transactional messages use {@code <producer-group>_tx}, where the broker sends check-backs.</li>
 *   <li>{@code rocketmq.send-timeout}: per send, default {@code 3s}.</li>
 *   <li>{@code rocketmq.max-pending-sends}: sends in flight per adapter, default 1024; then
 *       publishing waits up to {@code rocketmq.buffer-timeout} (default {@code 5s}) and fails with
 *       {@code BackPressureException}.</li>
 *   <li>{@code rocketmq.max-message-size}: payload plus headers, default 4 MiB less 1 KiB.</li>
 *   <li>{@code rocketmq.consume-threads}: RocketMQ consume threads per subscription, default 8;
 *       keep it at least the number of queues a member may own.</li>
 *   <li>{@code rocketmq.consume-mode}: {@code orderly} (default) or {@code concurrently}, see below.</li>
 *   <li>{@code rocketmq.share-consume-threads}: default {@code true}: the subscriptions' push
 *       consumers run on the adapter's shared consume and timer threads, each still limited to its
 *       own consume thread count, and hold no thread while idle; {@code false} leaves each consumer
 *       rocketmq-client's own pool and scheduler threads.</li>
 *   <li>{@code rocketmq.group-per-destination}: default {@code true}: the RocketMQ consumer group
 *       is {@code <group>_<destination>}, since a RocketMQ group must subscribe to the same topics
 *       on every member; {@code false} uses the group name as given.</li>
 *   <li>{@code rocketmq.cluster}: the cluster new topics are created in; default every master
 *       broker the name server knows.</li>
 *   <li>{@code rocketmq.admin-timeout}: provisioning and readiness, default {@code 10s}.</li>
 *   <li>{@code rocketmq.route-refresh}: how often clients ask the name server for their topics'
 *       routes, default {@code 5s} (RocketMQ's: 30 s); after a master fails over, publishing resumes
 *       at the next refresh;</li>
 *   <li>{@code rocketmq.timer-precision}: the broker's {@code timerPrecisionMs}, default {@code 1s};
 *       delivery times are rounded up to it, so a delayed message never arrives early.</li>
 *   <li>{@code rocketmq.tag} (publisher property, or message header): the RocketMQ tag of the
 *       messages, for subscriptions with a filter such as {@code TagA || TagB}.</li>
 *   <li>{@code rocketmq.access-key}: the ACL user (access key) that every producer, push and pull consumer and
 *       admin request of the adapter signs its requests with (rocketmq-client's {@code AclClientRPCHook} with
 *       {@code SessionCredentials}); default none (requests unsigned, for brokers without ACL). Needs
 *       {@code rocketmq.secret-key}: one without the other is refused at start. A broker that refuses the
 *       credentials fails provisioning, publishing or subscribing with an error naming the access key and the
 *       broker's reason, and saying to check the credentials.</li>
 *   <li>{@code rocketmq.secret-key}: that user's secret key. Never logged: masked in the configuration's
 *       {@code toString()} and the actuator endpoint, and named in no error.</li>
 *   <li>{@code rocketmq.tls}: {@code true} connects to the name server and brokers over TLS
 *       ({@code ClientConfig.setUseTLS}); default {@code false} (or rocketmq-client's {@code -Dtls.enable}). What
 *       the client trusts is JVM-wide in rocketmq-client 5.5.0, with no per-client setting: system properties
 *       {@code tls.test.mode.enable} (default {@code true}: any certificate), {@code tls.client.authServer}
 *       (default {@code false}: any certificate) and {@code tls.client.trustCertPath} (the PEM of the CA or of a
 *       self-signed broker certificate), read when rocketmq-client's classes load, or {@code tls.config.file}.
 *       Trusting any certificate, the adapter logs a WARN at start. To verify the certificate on Netty 4.2 the
 *       JVM also needs {@code -Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE}, since
 *       rocketmq-client opens TLS without the broker's host name: {@code rocketmq.tls=true} is refused at start
 *       without it; with it the certificate is verified, the host name is not.</li>
 * </ul>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>At-most-once: one-way send (a keyed message: an asynchronous send sequenced per key, not
 *       awaited); the subscriber commits the offset after a batch to the broker before handing any
 *       of it to the handler.</li>
 *   <li>At-least-once: asynchronous send acknowledged with {@code SEND_OK}; offsets move only past
 *       records the handler finished. Retries and dead-lettering are core's
 *       ({@code <destination>_dlq}); a record core gives back (for example when it cannot
 *       dead-letter, or on close) is sent back to the broker, which redelivers it from the group's
 *       retry topic with the delivery count raised, and after 16 such returns moves it to
 *       RocketMQ's {@code %DLQ%<group>}.</li>
 *   <li>Exactly-once: acknowledged send plus deduplication on the message id by the subscriber; with
 *       a {@link TransactionHandler} registered, RocketMQ transactional messages (see
 *       {@link RocketMqTransactions}).</li>
 *   <li>Order per key: the key's hash picks the queue; each queue is consumed by RocketMQ's orderly
 *       listener (queues locked on the broker), one thread per queue. With
 *       {@code rocketmq.consume-mode=concurrently} (instance or subscription property) a group
 *       subscription at least once or exactly once uses RocketMQ's concurrent listener instead:
 *       more throughput for slow handlers, no per-key order.</li>
 *   <li>Delayed delivery: RocketMQ 5's timer, at most the broker's {@code timerMaxDelaySec}
 *       (3 days by default).</li>
 * </ul>
 *
 * <h2>Fleet control plane</h2>
 * {@code control()} offers a control log (a one-queue topic named after the log, appended to with
 * acknowledged sends and read whole with the pull API; the broker deletes records after its
 * {@code fileReservedTime}, 72 hours by default) and leader election (the broker's queue lock that
 * orderly consumption uses: a clean close hands over in under a second, a dead leader's lock
 * expires after 60 seconds). Each class's javadoc states what it does and does not guarantee.
 */
public final class RocketMqAdapterFactory implements BrokerAdapterFactory {

    @Override
    public String id() {
        return RocketMqAdapter.ID;
    }

    @Override
    public BrokerAdapter create(BrokerConfig config) {
        return new RocketMqAdapter(config);
    }
}
