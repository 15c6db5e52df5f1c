package io.switchboard.rocketmq.internal.publish;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps one round of sends in flight per key lane, so that a key's messages are stored in publish
 * order, and sends everything that waited in a lane meanwhile as the next round.
 *
 * <p>rocketmq-client runs asynchronous sends on a thread pool and the broker handles a
 * connection's requests on several threads, so two pipelined sends may be stored in either
 * order. Keys are hashed onto {@value #LANES} lanes; a lane starts its next round when every send
 * of the previous one is answered (from RocketMQ's callback thread, which only hands the work to
 * the client's executor). A round is the lane's waiting messages in publish order, at most
 * {@link Sender#maxRound()} of them: the sender stores each queue's share of a round as one batch,
 * which RocketMQ appends in order. Different lanes still travel in parallel. Lock-free: a queue
 * and a flag per lane.
 *
 * @param <T> what one waiting send is
 */
final class KeyLanes<T> {

    /** Sends rounds. */
    interface Sender<T> {
        /** The most messages a round may take now (1 while the topic's queues are not known yet). */
        int maxRound();

        /**
         * Starts sending one round, in order; never throws.
         *
         * @param done to call once, when every send of the round was answered or failed
         * @return true when {@code done} will be called; false when the round is over already (every
         *     send failed at once, or was answered before this returned) and {@code done} is not called
         */
        boolean send(List<T> round, Runnable done);
    }

    /**
     * Few lanes, so that rounds are big: a lane's keys select the queues {@code hash % queues}, so
     * with a topic's usual 4 or 8 queues each lane feeds one or two queues, and everything that
     * waited for the lane goes as one batch per queue. With 64 lanes (before 2026-11-23) each
     * round was a sixteenth as big and keyed throughput at full speed was about half (bench
     * keyed-max-rate: 35-72k against 90k msg/s). Any fixed count keeps a key's order.
     */
    private static final int LANES = 4;

    private final List<Lane> lanes = new ArrayList<>(LANES);
    private final Sender<T> sender;

    KeyLanes(Sender<T> sender) {
        this.sender = sender;
        for (int i = 0; i < LANES; i++) {
            lanes.add(new Lane());
        }
    }

    void submit(String key, T send) {
        Lane lane = lanes.get(Math.floorMod(key.hashCode(), LANES));
        lane.waiting.offer(send);
        lane.drain();
    }

    private final class Lane {
        private final Queue<T> waiting = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean busy = new AtomicBoolean();

        void drain() {
            while (busy.compareAndSet(false, true)) {
                T first = waiting.poll();
                if (first == null) {
                    busy.set(false);
                    if (waiting.isEmpty()) {
                        return;
                    }
                    continue;
                }
                List<T> round = new ArrayList<>(4);
                round.add(first);
                int max = sender.maxRound();
                T next;
                while (round.size() < max && (next = waiting.poll()) != null) {
                    round.add(next);
                }
                if (sender.send(round, this::finished)) {
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
