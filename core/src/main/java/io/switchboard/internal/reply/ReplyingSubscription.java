package io.switchboard.internal.reply;

import io.switchboard.Subscription;
import java.util.concurrent.CompletionStage;

/** A replying subscription: closing it drains the subscription, then closes its reply publishers. */
public final class ReplyingSubscription implements Subscription {

    private final Subscription delegate;
    private final Responder<?, ?> responder;

    public ReplyingSubscription(Subscription delegate, Responder<?, ?> responder) {
        this.delegate = delegate;
        this.responder = responder;
    }

    @Override
    public String destination() {
        return delegate.destination();
    }

    @Override
    public String group() {
        return delegate.group();
    }

    @Override
    public CompletionStage<Void> ready() {
        return delegate.ready();
    }

    @Override
    public CompletionStage<Void> terminated() {
        return delegate.terminated();
    }

    @Override
    public boolean isActive() {
        return delegate.isActive();
    }

    @Override
    public void close() {
        delegate.close();
        responder.close();
    }

    @Override
    public String toString() {
        return delegate.toString();
    }
}
