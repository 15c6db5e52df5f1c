package io.switchboard.bench.run;

import io.switchboard.bench.measure.HeapTrend;
import io.switchboard.bench.measure.Percentiles;
import io.switchboard.bench.workload.Workload;
import java.util.List;

/**
 * The outcome of one workload (one grid point) on one broker in one mode. Figures cover the
 * measured phase only; the warm-up is excluded.
 *
 * @param workload the workload as run (time scale applied)
 * @param broker the broker id
 * @param mode {@code sdk} or {@code native}
 * @param sent messages sent while measuring
 * @param acked of those, acknowledged by the broker
 * @param failed of those, failed
 * @param received messages received while measuring (each subscription counts its own copy)
 * @param expected copies that should have been received: acknowledged × subscriptions per topic
 * @param publishRate acknowledged messages per second
 * @param consumeRate received messages per second
 * @param endToEnd latency from the intended send time to the consumer, ms
 * @param publishLatency latency from the actual send to the broker's acknowledgement, ms
 * @param publishDelay how late sends left against the schedule (scheduling slip), ms
 * @param publishCv coefficient of variation of the per-second publish rate
 * @param consumeCv coefficient of variation of the per-second consume rate
 * @param samples throughput and p99 over time, warm-up included
 * @param heap the heap after forced GCs over the measured phase ({@link HeapTrend#NONE} unless probes were asked for)
 * @param cpuMicrosPerMessage this JVM's CPU time (every thread: the clients, and the brokers started
 *     in-process) from the start of the measured phase to the end of draining, in microseconds per
 *     message received in that time; NaN when unknown. Steadier than a full-speed rate on a saturated
 *     machine, where the rate is about the cores over this figure. A broker in another process
 *     (RabbitMQ, a broker of {@code --brokers-in-child}, an external Kafka or RocketMQ) is not in it.
 * @param brokerCpuMicrosPerMessage the CPU time of the broker's own process on this machine over the
 *     same interval, per the same messages: the child JVM of {@code --brokers-in-child} (Kafka's
 *     broker; RocketMQ's name server and broker), or the local RabbitMQ server's Erlang VM (all its
 *     work, other clients' too); NaN when the broker has no such process (in-process, external) or
 *     it was not found
 * @param clientCpuMicrosPerMessage the client CPU the live comparison counted over the same interval, per the same
 *     messages (meter {@code switchboard.client.cpu}: the client's threads, core's lanes without the handlers, the
 *     sampled publish calls); NaN except in mode {@code sdk-cost}
 * @param jitMillis the JIT compilers' time over the same interval ({@link JitActivity}), ms; NaN when unknown. Work the
 *     compilers still had queued runs on the run's cores and counts in {@code cpuMicrosPerMessage}
 * @param error why the run failed, or null
 */
public record RunResult(
        Workload workload, String broker, String mode,
        long sent, long acked, long failed, long received, long expected,
        double publishRate, double consumeRate,
        Percentiles endToEnd, Percentiles publishLatency, Percentiles publishDelay,
        double publishCv, double consumeCv,
        List<Sample> samples, HeapTrend heap, double cpuMicrosPerMessage, double brokerCpuMicrosPerMessage,
        double clientCpuMicrosPerMessage, double jitMillis, String error) {

    /** Copies the samples. */
    public RunResult {
        samples = List.copyOf(samples);
    }

    /** A run that could not be carried out. */
    public static RunResult failed(Workload workload, String broker, String mode, String error) {
        return new RunResult(workload, broker, mode, 0, 0, 0, 0, 0, 0, 0, Percentiles.EMPTY, Percentiles.EMPTY,
                Percentiles.EMPTY, 0, 0, List.of(), HeapTrend.NONE, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                error);
    }

    /** Copies expected but not received (never negative; duplicates do not offset losses elsewhere). */
    public long lost() {
        return Math.max(0, expected - received);
    }

    /** True when the run completed. */
    public boolean ok() {
        return error == null;
    }
}
