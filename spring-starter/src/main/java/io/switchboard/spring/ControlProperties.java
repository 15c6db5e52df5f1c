package io.switchboard.spring;

import java.time.Duration;

/**
 * {@code switchboard.control.*}: the control channel through which the replicas of an application
 * share their routes, promotion gates and comparison figures. Unset, routes are each process's
 * own (and the log says so at startup). Setting {@code instance} (or {@code enabled: true}) turns
 * it on; the fleet name defaults to {@code spring.application.name}.
 */
public class ControlProperties {

    /** Turns the control channel on with the defaults (true), or off whatever else is set (false). */
    private Boolean enabled;

    /** The broker instance whose broker carries the control channel; default the first instance. */
    private String instance;

    /** The fleet: replicas with the same name share routes; default spring.application.name, else "switchboard". */
    private String fleet;

    /** This replica's id; default the host name plus a random suffix. */
    private String replica;

    /** How long startup waits to read the fleet's routes before starting on the configured ones (DEGRADED). */
    private Duration startupTimeout;

    /** How long a route change waits for the control channel to store it before failing. */
    private Duration writeTimeout;

    /** A replica not heard from for this long is taken as gone. */
    private Duration replicaTimeout;

    /** How often the leader appends every route again, so that a log truncated by age or size keeps them. */
    private Duration refresh;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public String getInstance() {
        return instance;
    }

    public void setInstance(String instance) {
        this.instance = instance;
    }

    public String getFleet() {
        return fleet;
    }

    public void setFleet(String fleet) {
        this.fleet = fleet;
    }

    public String getReplica() {
        return replica;
    }

    public void setReplica(String replica) {
        this.replica = replica;
    }

    public Duration getStartupTimeout() {
        return startupTimeout;
    }

    public void setStartupTimeout(Duration startupTimeout) {
        this.startupTimeout = startupTimeout;
    }

    public Duration getWriteTimeout() {
        return writeTimeout;
    }

    public void setWriteTimeout(Duration writeTimeout) {
        this.writeTimeout = writeTimeout;
    }

    public Duration getReplicaTimeout() {
        return replicaTimeout;
    }

    public void setReplicaTimeout(Duration replicaTimeout) {
        this.replicaTimeout = replicaTimeout;
    }

    public Duration getRefresh() {
        return refresh;
    }

    public void setRefresh(Duration refresh) {
        this.refresh = refresh;
    }

    /** True when any setting turns the control channel on. */
    boolean configured() {
        return Boolean.TRUE.equals(enabled) || instance != null || fleet != null;
    }
}
