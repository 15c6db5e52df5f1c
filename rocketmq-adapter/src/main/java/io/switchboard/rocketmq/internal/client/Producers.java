package io.switchboard.rocketmq.internal.client;

import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.rocketmq.TransactionHandler;
import io.switchboard.rocketmq.TransactionOutcome;
import io.switchboard.rocketmq.TransactionalMessage;
import io.switchboard.rocketmq.internal.RocketMqSettings;
import io.switchboard.rocketmq.internal.mapping.MessageMapping;
import java.util.Collections;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageExt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's RocketMQ producers, started on first use: one for plain sends (its client also
 * serves provisioning), one for transactional sends. Publishers share them; a RocketMQ producer
 * is thread-safe.
 */
// rocketmq-client 5 deprecates its remoting API in favour of its gRPC client; this adapter is the remoting one
@SuppressWarnings("deprecation")
public final class Producers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Producers.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final RocketMqSettings settings;
    private final String clientName;
    private final TransactionHandlers.Slot handler;
    private final Object lock = new Object();
    private volatile DefaultMQProducer plain;
    private volatile TransactionMQProducer transactional;
    private boolean closed;

    public Producers(RocketMqSettings settings, String clientName, TransactionHandlers.Slot handler) {
        this.settings = settings;
        this.clientName = clientName;
        this.handler = handler;
    }

    public DefaultMQProducer plain() {
        DefaultMQProducer producer = plain;
        if (producer != null) {
            return producer;
        }
        synchronized (lock) {
            if (plain == null) {
                plain = start(new DefaultMQProducer(settings.producerGroup(), settings.rpcHook()));
            }
            return plain;
        }
    }

    public TransactionMQProducer transactional() {
        TransactionMQProducer producer = transactional;
        if (producer != null) {
            return producer;
        }
        synchronized (lock) {
            if (transactional == null) {
                TransactionMQProducer created = new TransactionMQProducer(settings.producerGroup() + "_tx", settings.rpcHook());
                created.setTransactionListener(new HandlerListener());
                transactional = start(created);
            }
            return transactional;
        }
    }

    /** The remoting API of the plain producer's client, for provisioning and consumer statistics. */
    public MQClientAPIImpl api() {
        return plain().getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    /** The plain producer's client instance, or null while the plain producer is not started (this starts nothing). */
    public MQClientInstance startedClient() {
        DefaultMQProducer producer = plain;
        return producer == null ? null : producer.getDefaultMQProducerImpl().getMqClientFactory();
    }

    /** {@return the ACL credentials the producers sign their requests with} */
    public AclCredentials credentials() {
        return settings.credentials();
    }

    /** The handler registered for this broker instance, or null. */
    public TransactionHandler handler() {
        return handler.get();
    }

    private <P extends DefaultMQProducer> P start(P producer) {
        if (closed) {
            throw new SwitchboardClosedException("RocketMQ adapter of broker instance '" + settings.instanceName()
                    + "' is closed; build a new Switchboard");
        }
        settings.configure(producer, clientName);
        producer.setSendMsgTimeout(settings.sendTimeoutMillis());
        producer.setMaxMessageSize(Math.max(settings.maxMessageSize(), 4 * 1024 * 1024));
        // the publisher retries asynchronous sends itself, so that it can report each retry (rocketmq-client's own
        // retry calls no hook and counts nothing another thread could read)
        producer.setRetryTimesWhenSendAsyncFailed(0);
        try {
            producer.start();
        } catch (MQClientException e) {
            throw new SwitchboardException("Could not start a RocketMQ producer of group '" + producer.getProducerGroup()
                    + "' for name server " + settings.nameServer() + ": " + e.getErrorMessage()
                    + "; check property " + RocketMqSettings.NAME_SERVER
                    + (settings.tls() ? " and the TLS settings (" + RocketMqSettings.TLS + ", tls.client.* system properties)" : ""),
                    e);
        }
        return producer;
    }

    /** A client instance name unique in this JVM, so adapters never share RocketMQ's client state. */
    public static String instanceName(String instance) {
        return "switchboard-" + instance + "-" + ProcessHandle.current().pid() + "-" + INSTANCES.incrementAndGet();
    }

    @Override
    public void close() {
        DefaultMQProducer p;
        TransactionMQProducer t;
        synchronized (lock) {
            closed = true;
            p = plain;
            t = transactional;
        }
        if (t != null) {
            ClientShutdown.run(t.getDefaultMQProducerImpl().getMqClientFactory(), t::shutdown);
        }
        if (p != null) {
            ClientShutdown.run(p.getDefaultMQProducerImpl().getMqClientFactory(), p::shutdown);
        }
    }

    /** Runs the registered handler's local transaction and answers check-backs; commits without one. */
    private final class HandlerListener implements TransactionListener {

        @Override
        public LocalTransactionState executeLocalTransaction(Message message, Object arg) {
            TransactionHandler current = handler.get();
            return current == null ? LocalTransactionState.COMMIT_MESSAGE : ask(current, message, true);
        }

        @Override
        public LocalTransactionState checkLocalTransaction(MessageExt message) {
            TransactionHandler current = handler.get();
            if (current == null) {
                log.info("RocketMQ checks back transactional message {} on '{}' but broker instance '{}' has no "
                        + "TransactionHandler registered: committing it", message.getMsgId(), message.getTopic(),
                        settings.instanceName());
                return LocalTransactionState.COMMIT_MESSAGE;
            }
            return ask(current, message, false);
        }

        private LocalTransactionState ask(TransactionHandler current, Message message, boolean execute) {
            TransactionalMessage view = view(message);
            try {
                TransactionOutcome outcome = execute ? current.execute(view) : current.check(view);
                return state(outcome);
            } catch (RuntimeException e) {
                log.warn("TransactionHandler of broker instance '{}' failed on message {} ({}); the broker will check "
                        + "back later", settings.instanceName(), view.messageId(), execute ? "execute" : "check", e);
                return LocalTransactionState.UNKNOW;
            }
        }

        private TransactionalMessage view(Message message) {
            var headers = Collections.unmodifiableMap(MessageMapping.headers(message));
            String id = io.switchboard.Envelope.id(headers); // either envelope form
            return new TransactionalMessage(message.getTopic(), id != null ? id : MessageClientIDSetter.getUniqID(message),
                    message.getKeys(), headers, message.getBody());
        }

        private LocalTransactionState state(TransactionOutcome outcome) {
            if (outcome == null) {
                return LocalTransactionState.UNKNOW;
            }
            return switch (outcome) {
                case COMMIT -> LocalTransactionState.COMMIT_MESSAGE;
                case ROLLBACK -> LocalTransactionState.ROLLBACK_MESSAGE;
                case UNKNOWN -> LocalTransactionState.UNKNOW;
            };
        }
    }
}
