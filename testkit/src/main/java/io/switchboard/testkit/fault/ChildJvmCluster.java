package io.switchboard.testkit.fault;

/**
 * A test cluster whose nodes are JVMs of their own ({@link ChildJvms}), with the faults every such
 * cluster offers: kill, clean stop, freeze and thaw, by node id.
 */
public abstract class ChildJvmCluster implements AutoCloseable {

    /** The nodes' JVMs. */
    protected final ChildJvms jvms;
    private NetworkNamespaces network;

    /**
     * A cluster of the nodes {@code jvms} runs, one JVM each.
     *
     * @param jvms the node JVMs
     */
    protected ChildJvmCluster(ChildJvms jvms) {
        this.jvms = jvms;
    }

    /**
     * Kills node {@code id} with {@code kill -9}; its data stays for a restart.
     *
     * @param id the node id
     */
    public void kill(int id) {
        jvms.kill(id);
    }

    /**
     * Stops node {@code id} with SIGTERM (its own shutdown runs) and waits until it exited.
     *
     * @param id the node id
     */
    public void stop(int id) {
        jvms.stop(id);
    }

    /**
     * Freezes node {@code id} (SIGSTOP): to its peers and clients it stops answering, as if cut off, until {@link #thaw(int)}.
     *
     * @param id the node id
     */
    public void freeze(int id) {
        jvms.freeze(id);
    }

    /**
     * Lets a frozen node run again (SIGCONT); nothing happens to a node that is not frozen.
     *
     * @param id the node id
     */
    public void thaw(int id) {
        jvms.thaw(id);
    }

    /**
     * {@return true while node {@code id}'s JVM runs (frozen or not)}
     *
     * @param id the node id
     */
    public boolean isRunning(int id) {
        return jvms.isAlive(id);
    }

    /**
     * Cuts node {@code id} off from its peers, the control plane and the clients (every packet to
     * and from it dropped) while it keeps running, until {@link #heal(int)}.
     *
     * @param id the node id
     * @throws IllegalStateException when this cluster's nodes do not run in network namespaces of their own
     */
    public void cut(int id) {
        network().cut(id);
    }

    /**
     * Heals the cut of node {@code id}; nothing happens to a node that is not cut.
     *
     * @param id the node id
     */
    public void heal(int id) {
        network().heal(id);
    }

    /**
     * Makes the nodes' network namespaces this cluster's, for {@link #cut(int)} and {@link #heal(int)}; a subclass
     * runs each node in its namespace and closes them with {@link #closeNetwork()}.
     *
     * @param namespaces one namespace per node id
     * @return {@code namespaces}
     */
    protected NetworkNamespaces partitionable(NetworkNamespaces namespaces) {
        this.network = namespaces;
        return namespaces;
    }

    /** Heals every cut and removes the network namespaces, if the nodes have them (after the nodes stopped). */
    protected void closeNetwork() {
        if (network != null) {
            network.close();
            network = null;
        }
    }

    private NetworkNamespaces network() {
        if (network == null) {
            throw new IllegalStateException(getClass().getSimpleName() + " nodes share this host's network: they cannot be "
                    + "cut off one by one (freeze one instead)");
        }
        return network;
    }

    @Override
    public abstract void close();
}
