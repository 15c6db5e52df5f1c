package io.switchboard.internal;

import io.switchboard.UnknownBrokerException;
import io.switchboard.spi.BrokerAdapterFactory;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/** Finds adapter factories on the classpath by id. */
public final class AdapterLoader {

    private AdapterLoader() {}

    /** The factory with the id, or {@link UnknownBrokerException} listing the ids that exist. */
    public static BrokerAdapterFactory find(String id) {
        for (BrokerAdapterFactory factory : ServiceLoader.load(BrokerAdapterFactory.class, classLoader())) {
            if (factory.id().equals(id)) {
                return factory;
            }
        }
        throw new UnknownBrokerException("No broker adapter with id '" + id + "' on the classpath; available: "
                + availableIds() + ". Add the adapter's dependency (for example io.switchboard:switchboard-kafka) "
                + "or correct the id");
    }

    /** Every adapter id on the classpath, sorted. */
    public static Set<String> availableIds() {
        Set<String> ids = new TreeSet<>();
        ServiceLoader.load(BrokerAdapterFactory.class, classLoader()).forEach(f -> ids.add(f.id()));
        return ids;
    }

    private static ClassLoader classLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : AdapterLoader.class.getClassLoader();
    }
}
