package io.switchboard.internal.fleet;

import io.switchboard.routing.Fleet;
import java.util.List;

/** The fleet view of a Switchboard without a control channel: routes are this process's alone. */
public final class LocalFleet implements Fleet {

    public static final LocalFleet INSTANCE = new LocalFleet();

    private LocalFleet() {}

    @Override
    public Status status() {
        return Status.LOCAL;
    }

    @Override
    public String reason() {
        return "no switchboard.control.* set: routes are this process's alone";
    }

    @Override
    public String fleetName() {
        return null;
    }

    @Override
    public String replica() {
        return null;
    }

    @Override
    public String controlInstance() {
        return null;
    }

    @Override
    public long routeVersion() {
        return 0;
    }

    @Override
    public boolean leader() {
        return false;
    }

    @Override
    public List<Replica> replicas() {
        return List.of();
    }
}
