package io.switchboard.rocketmq.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps one send in flight per key lane, so that a key's messages are stored in publish order.
 *
 * <p>rocketmq-client runs asynchronous sends on a thread pool and the broker handles a
 * connection's requests on several threads, so two pipelined sends may be stored in either
 * order. Keys are hashed onto {@value #LANES} lanes; a lane sends its next message when the
 * previous one is answered (from RocketMQ's callback thread, which only hands the send to the
 * client's executor). Different keys still travel in parallel. Lock-free: a queue and a flag
 * per lane.
 */
final class KeyLanes {

    /** Starts one send. */
    interface Send {
        /**
         * @param done to call once when the broker answered or the send failed later
         * @return true when the send is in flight (and {@code done} will be called); false when it
         *     failed at once (and {@code done} must not be called)
         */
        boolean start(Runnable done);
    }

    private static final int LANES = 64;

    private final Lane[] lanes = new Lane[LANES];

    KeyLanes() {
        for (int i = 0; i < LANES; i++) {
            lanes[i] = new Lane();
        }
    }

    void submit(String key, Send send) {
        Lane lane = lanes[Math.floorMod(key.hashCode(), LANES)];
        lane.waiting.offer(send);
        lane.drain();
    }

    private static final class Lane {
        private final Queue<Send> waiting = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean busy = new AtomicBoolean();

        void drain() {
            while (busy.compareAndSet(false, true)) {
                Send next = waiting.poll();
                if (next == null) {
                    busy.set(false);
                    if (waiting.isEmpty()) {
                        return;
                    }
                    continue;
                }
                if (next.start(this::finished)) {
                    return;
                }
                busy.set(false);
            }
        }

        private void finished() {
            busy.set(false);
            drain();
        }
    }
}
