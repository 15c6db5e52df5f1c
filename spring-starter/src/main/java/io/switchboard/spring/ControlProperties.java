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

    /** {@return true to turn the control channel on with the defaults, false to turn it off whatever else is set} */
    public Boolean getEnabled() {
        return enabled;
    }

    /**
     * Sets {@link #getEnabled()}.
     *
     * @param enabled the value to set
     */
    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    /** {@return the broker instance whose broker carries the control channel; default the first instance} */
    public String getInstance() {
        return instance;
    }

    /**
     * Sets {@link #getInstance()}.
     *
     * @param instance the value to set
     */
    public void setInstance(String instance) {
        this.instance = instance;
    }

    /** {@return the fleet: replicas with the same name share routes; default spring.application.name, else "switchboard"} */
    public String getFleet() {
        return fleet;
    }

    /**
     * Sets {@link #getFleet()}.
     *
     * @param fleet the value to set
     */
    public void setFleet(String fleet) {
        this.fleet = fleet;
    }

    /** {@return this replica's id; default the host name plus a random suffix} */
    public String getReplica() {
        return replica;
    }

    /**
     * Sets {@link #getReplica()}.
     *
     * @param replica the value to set
     */
    public void setReplica(String replica) {
        this.replica = replica;
    }

    /** {@return how long startup waits to read the fleet's routes before starting on the configured ones (DEGRADED)} */
    public Duration getStartupTimeout() {
        return startupTimeout;
    }

    /**
     * Sets {@link #getStartupTimeout()}.
     *
     * @param startupTimeout the value to set
     */
    public void setStartupTimeout(Duration startupTimeout) {
        this.startupTimeout = startupTimeout;
    }

    /** {@return how long a route change waits for the control channel to store it before failing} */
    public Duration getWriteTimeout() {
        return writeTimeout;
    }

    /**
     * Sets {@link #getWriteTimeout()}.
     *
     * @param writeTimeout the value to set
     */
    public void setWriteTimeout(Duration writeTimeout) {
        this.writeTimeout = writeTimeout;
    }

    /** {@return the time after which a replica not heard from is taken as gone} */
    public Duration getReplicaTimeout() {
        return replicaTimeout;
    }

    /**
     * Sets {@link #getReplicaTimeout()}.
     *
     * @param replicaTimeout the value to set
     */
    public void setReplicaTimeout(Duration replicaTimeout) {
        this.replicaTimeout = replicaTimeout;
    }

    /** {@return how often the leader appends every route again, so that a log truncated by age or size keeps them} */
    public Duration getRefresh() {
        return refresh;
    }

    /**
     * Sets {@link #getRefresh()}.
     *
     * @param refresh the value to set
     */
    public void setRefresh(Duration refresh) {
        this.refresh = refresh;
    }

    /** True when any setting turns the control channel on. */
    boolean configured() {
        return Boolean.TRUE.equals(enabled) || instance != null || fleet != null;
    }
}
