package io.switchboard.testkit.rocketmq;

import org.apache.rocketmq.logging.ch.qos.logback.classic.spi.ILoggingEvent;
import org.apache.rocketmq.logging.ch.qos.logback.classic.spi.IThrowableProxy;
import org.apache.rocketmq.logging.ch.qos.logback.core.filter.Filter;
import org.apache.rocketmq.logging.ch.qos.logback.core.spi.FilterReply;

/**
 * Keeps off the console (not out of {@code rocketmq.log}) the errors an embedded broker logs when a
 * client went away normally: a consumer closed while its long-polling pull was suspended in the
 * broker, whose answer then finds the channel closed ("Failed to write response", the request and
 * response dumped as {@code RemotingCommand [...]}) or its topic deleted ("the topic ... not
 * exist"), the pull threads' last notifications while the broker stops, and the name server's
 * unregistration thread interrupted as the name server stops. RocketMQ logs each of these at ERROR
 * although nothing failed; a test or a bench run ending with a page of them hid
 * real errors. Used by the testkit's {@code rmq.logback-test.xml}.
 */
public final class RoutineErrorsFilter extends Filter<ILoggingEvent> {

    @Override
    public FilterReply decide(ILoggingEvent event) {
        return routine(event.getFormattedMessage(), event.getThrowableProxy()) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }

    static boolean routine(String message, IThrowableProxy thrown) {
        for (IThrowableProxy t = thrown; t != null; t = t.getCause()) {
            String type = t.getClassName();
            if (type.endsWith("ClosedChannelException")
                    || (type.equals("java.util.concurrent.RejectedExecutionException") && message != null
                            && message.startsWith("Failed to submit a listener notification task"))
                    || (type.equals("java.lang.InterruptedException") && message != null
                            && message.startsWith("Handle unregister broker request failed"))) {
                return true;
            }
        }
        if (message == null) {
            return false;
        }
        return message.startsWith("RemotingCommand [code=")
                || (message.startsWith("the topic ") && message.contains(" not exist, consumer: "));
    }
}
