package io.switchboard.testkit.fault;

/**
 * A test cluster whose nodes are JVMs of their own ({@link ChildJvms}), with the faults every such
 * cluster offers: kill, clean stop, freeze and thaw, by node id.
 */
public abstract class ChildJvmCluster implements AutoCloseable {

    /** The nodes' JVMs. */
    protected final ChildJvms jvms;

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

    @Override
    public abstract void close();
}
