package io.switchboard.internal.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The objects that function meters read, one per registry and meter id. A function meter holds its object weakly and
 * a registry returns the first meter registered under an id, so every publisher or subscription with the same tags
 * must record into the same object, kept here as long as the registry lives. Used when meters are registered, never
 * per record.
 */
final class RegistryShared {

    private static final Map<MeterRegistry, Map<Meter.Id, Object>> SHARED = new WeakHashMap<>();

    private RegistryShared() {}

    /** The object for {@code name} and {@code tags} in {@code registry}, made (and its meters registered) on first use. */
    @SuppressWarnings("unchecked")
    static synchronized <T> T get(MeterRegistry registry, String name, Tags tags, Supplier<T> make) {
        Meter.Id id = new Meter.Id(name, tags, null, null, Meter.Type.OTHER); // equal by name and tags
        return (T) SHARED.computeIfAbsent(registry, r -> new HashMap<>()).computeIfAbsent(id, i -> make.get());
    }

    /**
     * As {@link #get}, and adds the object's meters to {@code registered} (when not null), for removal when their owner
     * closes.
     */
    static <T> T get(MeterRegistry registry, String name, Tags tags, Supplier<T> make,
            Function<T, List<Meter>> meters, List<Meter> registered) {
        T shared = get(registry, name, tags, make);
        if (registered != null) {
            registered.addAll(meters.apply(shared));
        }
        return shared;
    }

    /** Forgets the object of a meter its owner removed from the registry, so that a later owner registers anew. */
    static synchronized void forget(MeterRegistry registry, Meter meter) {
        Map<Meter.Id, Object> byId = SHARED.get(registry);
        if (byId != null) {
            Meter.Id id = meter.getId();
            byId.remove(new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), null, null, Meter.Type.OTHER));
        }
    }

    /** A byte counter ({@link FunctionCounter}, base unit bytes) shared by every owner with these tags. */
    static LongAdder bytes(MeterRegistry registry, String name, String description, Tags tags) {
        return get(registry, name, tags, () -> {
            LongAdder adder = new LongAdder();
            FunctionCounter.builder(name, adder, LongAdder::sum).description(description).baseUnit("bytes").tags(tags)
                    .register(registry);
            return adder;
        });
    }
}
