package io.switchboard.testkit.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A network of its own for each node of a test cluster, so that a test can cut a node off from its
 * peers and its clients and heal it again while the node keeps running, as a real network
 * partition does (unlike {@code SIGSTOP}, the cut-off node notices: its requests time out, it may
 * step down). Node {@code i} runs in Linux network namespace {@code sb<tag>n<i>}, joined to this
 * host by a veth pair: the node has address {@code 10.<net>.<i>.2} ({@link #nodeAddress}), this host
 * {@code 10.<net>.<i>.1} on the pair ({@link #hostAddress}), and nodes reach one another through
 * this host, which forwards between the pairs.
 *
 * <p>Each node also has a host name, {@link #hostName(int)}: every namespace's {@code /etc/hosts}
 * (this host's, plus a line per node; {@code ip netns exec} mounts {@code /etc/netns/<ns>/hosts}
 * over it) resolves every node's name to its address, so that programs that name their peers by host
 * (Erlang distribution: {@code rabbit@<host>}) find them. What still runs in a namespace when it is
 * closed (a daemon a node started, such as Erlang's {@code epmd}) is killed.
 *
 * <p>{@link #cut(int)} drops every packet to and from the node (blackhole routes on both sides: TCP
 * connections stay open and go silent, as across a broken switch); {@link #heal(int)} removes them.
 * Needs root and iproute2 ({@code ip netns}); IPv4 forwarding is switched on while the namespaces
 * exist and set back on {@link #close()}. Namespaces left by a JVM that died are removed when the
 * same names are made again.
 */
public final class NetworkNamespaces implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NetworkNamespaces.class);
    private static final Path IP_FORWARD = Path.of("/proc/sys/net/ipv4/ip_forward");
    private static final Path ETC_NETNS = Path.of("/etc/netns");
    /**
     * A test JVM's namespace in {@code ip netns list}: {@code sb<pid % 100000>n<node>}, or {@code sb<pid % 100000>s<k>n<node>}
     * for the k-th set its JVM made while another was open (two single-node clusters side by side).
     */
    private static final Pattern NAMESPACE = Pattern.compile("(?m)^sb(\\d+)(?:s\\d+)?n\\d+");
    /** Sets of this JVM open now, and IPv4 forwarding as it was before the first of them. */
    private static int openInThisJvm;
    private static int madeInThisJvm;
    private static String forwardingBeforeThisJvm;

    private final String tag;
    private final int net;
    private final int nodes;
    private final Set<Integer> cut = new TreeSet<>();
    private final String forwardingBefore;
    private boolean closed;

    private NetworkNamespaces(String tag, int net, int nodes, String forwardingBefore) {
        this.tag = tag;
        this.net = net;
        this.nodes = nodes;
        this.forwardingBefore = forwardingBefore;
    }

    /**
     * Makes one namespace per node, {@code 1..nodes}.
     *
     * @param nodes how many nodes (at most 250)
     * @return the namespaces
     * @throws IllegalStateException when this process may not make them (not root, no iproute2), saying so
     */
    public static NetworkNamespaces create(int nodes) {
        if (nodes < 1 || nodes > 250) {
            throw new IllegalArgumentException("nodes must be 1..250, not " + nodes);
        }
        long pid = ProcessHandle.current().pid();
        String forwarding;
        int open;
        int made;
        synchronized (NetworkNamespaces.class) {
            try {
                String now = Files.readString(IP_FORWARD, StandardCharsets.US_ASCII).trim();
                Files.writeString(IP_FORWARD, "1", StandardCharsets.US_ASCII);
                if (openInThisJvm == 0) {
                    forwardingBeforeThisJvm = now;
                }
            } catch (IOException e) {
                throw new IllegalStateException("Cannot switch on IPv4 forwarding (" + IP_FORWARD + "): network namespaces "
                        + "for partition tests need root; run the cluster tests as root, or leave out @Tag(\"cluster\")", e);
            }
            open = openInThisJvm++;
            made = madeInThisJvm++;
            forwarding = forwardingBeforeThisJvm;
        }
        // a second set while one is open (two clusters of one node each, side by side) gets names of its own
        String tag = pid % 100_000 + (open == 0 ? "" : "s" + made % 100);
        int net = unusedNet(100 + (int) ((pid + made) % 100));
        NetworkNamespaces namespaces = new NetworkNamespaces(tag, net, nodes, forwarding);
        removeStale();
        try {
            for (int i = 1; i <= nodes; i++) {
                namespaces.make(i);
            }
            namespaces.writeHostsFiles();
        } catch (RuntimeException e) {
            namespaces.close();
            throw e;
        }
        log.info("Network namespaces {}..{} for {} nodes, node i at 10.{}.i.2", namespaces.namespace(1),
                namespaces.namespace(nodes), nodes, net);
        return namespaces;
    }

    /**
     * {@return the first of {@code 100..199}, from {@code preferred} on, whose {@code 10.<net>.0.0/16} no interface of this
     * host has}: test JVMs running side by side (modules built in parallel) whose pids end alike must not share addresses
     */
    private static int unusedNet(int preferred) {
        Result addresses = exec("-o", "-4", "addr", "show");
        String all = addresses.ok() ? addresses.output() : "";
        for (int k = 0; k < 100; k++) {
            int net = 100 + (preferred - 100 + k) % 100;
            if (!all.contains(" 10." + net + ".")) {
                return net;
            }
        }
        throw new IllegalStateException("Every network 10.100-199.0.0/16 is in use on this host: test namespaces of "
                + "other JVMs? (ip netns list)");
    }

    /** Removes the namespaces (and so their veth pairs) of test JVMs that died before closing theirs. */
    private static void removeStale() {
        Set<Long> live = new HashSet<>();
        ProcessHandle.allProcesses().forEach(p -> live.add(p.pid() % 100_000));
        Result list = exec("netns", "list");
        String names = list.ok() ? list.output() : "";
        Matcher m = NAMESPACE.matcher(names);
        while (m.find()) {
            if (!live.contains(Long.parseLong(m.group(1)))) {
                log.info("Removing network namespace {} of a test JVM that is gone", m.group());
                remove(m.group());
            }
        }
    }

    /** Kills what still runs in namespace {@code ns}, deletes it and its {@code /etc/netns} directory. */
    private static void remove(String ns) {
        Result pids = exec("netns", "pids", ns);
        if (pids.ok()) {
            pids.output().lines().map(String::strip).filter(p -> p.matches("\\d+")).map(Long::parseLong)
                    .forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
        ipQuietly("netns", "del", ns);
        Path dir = ETC_NETNS.resolve(ns);
        try {
            Files.deleteIfExists(dir.resolve("hosts"));
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            log.warn("Could not delete {}: {}", dir, e.toString());
        }
    }

    /** Writes every namespace's hosts file: this host's, then each node's address and {@link #hostName(int)}. */
    private void writeHostsFiles() {
        StringBuilder hosts = new StringBuilder();
        try {
            hosts.append(Files.readString(Path.of("/etc/hosts"), StandardCharsets.UTF_8).stripTrailing()).append('\n');
        } catch (IOException e) {
            hosts.append("127.0.0.1 localhost\n");
        }
        for (int i = 1; i <= nodes; i++) {
            hosts.append(nodeAddress(i)).append(' ').append(hostName(i)).append('\n');
        }
        for (int i = 1; i <= nodes; i++) {
            Path dir = ETC_NETNS.resolve(namespace(i));
            try {
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("hosts"), hosts, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot write " + dir.resolve("hosts") + " (partition tests need root)", e);
            }
        }
    }

    private void make(int i) {
        String ns = namespace(i);
        remove(ns); // left by a JVM with the same pid that died
        ipQuietly("link", "del", hostInterface(i));
        ip("netns", "add", ns);
        ip("link", "add", hostInterface(i), "type", "veth", "peer", "name", nodeInterface(i));
        ip("link", "set", nodeInterface(i), "netns", ns);
        ip("addr", "add", hostAddress(i) + "/24", "dev", hostInterface(i));
        ip("link", "set", hostInterface(i), "up");
        ip("-n", ns, "addr", "add", nodeAddress(i) + "/24", "dev", nodeInterface(i));
        ip("-n", ns, "link", "set", nodeInterface(i), "up");
        ip("-n", ns, "link", "set", "lo", "up");
        ip("-n", ns, "route", "add", "default", "via", hostAddress(i));
    }

    /**
     * {@return the command prefix that runs a program in node {@code i}'s namespace}
     *
     * @param i the node
     */
    public List<String> commandPrefix(int i) {
        return List.of("ip", "netns", "exec", namespace(i));
    }

    /**
     * {@return node {@code i}'s own address, where this host and the other nodes reach it}
     *
     * @param i the node
     */
    public String nodeAddress(int i) {
        return "10." + net + "." + i + ".2";
    }

    /**
     * {@return node {@code i}'s host name (no dots), which every namespace resolves to {@link #nodeAddress(int)}}
     *
     * @param i the node
     */
    public String hostName(int i) {
        return namespace(i);
    }

    /**
     * {@return this host's address as node {@code i} reaches it (servers of this JVM must listen on it, or on 0.0.0.0)}
     *
     * @param i the node
     */
    public String hostAddress(int i) {
        return "10." + net + "." + i + ".1";
    }

    /**
     * Cuts node {@code i} off: every packet to it (from this host or another node) and from it is
     * dropped, until {@link #heal(int)}.
     *
     * @param i the node
     */
    public synchronized void cut(int i) {
        if (cut.add(i)) {
            blackholes("add", i);
            log.info("Node {} ({}) cut off", i, nodeAddress(i));
        }
    }

    /**
     * Heals a cut: node {@code i} reaches and is reached again. Nothing happens to a node not cut.
     *
     * @param i the node
     */
    public synchronized void heal(int i) {
        if (cut.remove(i)) {
            blackholes("del", i);
            log.info("Node {} ({}) healed", i, nodeAddress(i));
        }
    }

    /** Adds or deletes ({@code action}) the routes that drop node {@code i}'s packets, on this host and in its namespace. */
    private void blackholes(String action, int i) {
        ip("route", action, "blackhole", nodeAddress(i) + "/32");
        ip("-n", namespace(i), "route", action, "blackhole", hostAddress(i) + "/32");
        ip("-n", namespace(i), "route", action, "blackhole", "10." + net + ".0.0/16");
    }

    /**
     * Heals every cut, kills what still runs in the namespaces, removes them, their veth pairs and
     * hosts files, and sets IPv4 forwarding back (unless another test JVM's namespaces are still there: its nodes
     * route through this host too). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (NetworkNamespaces.class) {
            openInThisJvm--;
        }
        for (int i : new ArrayList<>(cut)) {
            ipQuietly("route", "del", "blackhole", nodeAddress(i) + "/32");
        }
        cut.clear();
        for (int i = 1; i <= nodes; i++) {
            remove(namespace(i));
            ipQuietly("link", "del", hostInterface(i));
        }
        Result left = exec("netns", "list");
        if (left.ok() && NAMESPACE.matcher(left.output()).find()) {
            log.info("IPv4 forwarding left on: another test JVM's namespaces still route through this host");
            return;
        }
        try {
            Files.writeString(IP_FORWARD, forwardingBefore, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            log.warn("Could not set {} back to {}", IP_FORWARD, forwardingBefore, e);
        }
    }

    private String namespace(int i) {
        return "sb" + tag + "n" + i;
    }

    private String hostInterface(int i) {
        return "sb" + tag + "h" + i; // at most 15 characters: sb + 5 (+ s + 2) + h + 3
    }

    private String nodeInterface(int i) {
        return "sb" + tag + "v" + i;
    }

    private static void ip(String... args) {
        Result result = exec(args);
        if (!result.ok()) {
            throw new IllegalStateException("ip " + String.join(" ", args) + " failed: " + result.output().trim()
                    + " (partition tests need root and iproute2)");
        }
    }

    private static void ipQuietly(String... args) {
        exec(args);
    }

    private record Result(boolean ok, String output) {}

    /** Runs {@code ip args}. */
    private static Result exec(String... args) {
        List<String> command = new ArrayList<>();
        command.add("ip");
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(false, "timed out");
            }
            return new Result(p.exitValue() == 0, output);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + String.join(" ", command)
                    + " (partition tests need iproute2's ip on the PATH)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted running " + String.join(" ", command), e);
        }
    }
}
