package io.switchboard.rabbit.internal.publish;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;

/**
 * The confirm listener of one channel of a {@link PublishChannel}, on the connection's I/O thread:
 * it names the channel, so that the confirms of a channel retired after a nack are ignored.
 */
final class ChannelConfirms implements ConfirmListener {

    private final PublishChannel owner;
    private final Channel channel;

    ChannelConfirms(PublishChannel owner, Channel channel) {
        this.owner = owner;
        this.channel = channel;
    }

    @Override
    public void handleAck(long seq, boolean multiple) {
        owner.acked(channel, seq, multiple);
    }

    @Override
    public void handleNack(long seq, boolean multiple) {
        owner.nacked(channel, seq, multiple);
    }
}
