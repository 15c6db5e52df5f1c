package io.switchboard.spring.internal;

import io.switchboard.Switchboard;
import io.switchboard.spring.CodecResolver;
import io.switchboard.spring.SwitchboardProperties;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What the starter's registries ({@code Publishers}, {@code Requesters}, {@code Pollers}) share: the Switchboard, the
 * properties and codecs they make things with, and each thing made once per key (a destination and types).
 */
abstract class MadeOnFirstUse {

    final Switchboard switchboard;
    final SwitchboardProperties properties;
    final CodecResolver codecs;
    private final Map<List<Object>, Object> made = new ConcurrentHashMap<>();

    MadeOnFirstUse(Switchboard switchboard, SwitchboardProperties properties, CodecResolver codecs) {
        this.switchboard = switchboard;
        this.properties = properties;
        this.codecs = codecs;
    }

    /** The thing made for {@code key} (none of its parts null), made now by {@code make} if it is the first use. */
    @SuppressWarnings("unchecked")
    final <V> V once(Supplier<V> make, Object... key) {
        return (V) made.computeIfAbsent(List.of(key), k -> make.get());
    }

    /** Everything made so far, forgotten. */
    final Collection<Object> takeAll() {
        List<Object> all = List.copyOf(made.values());
        made.clear();
        return all;
    }
}
