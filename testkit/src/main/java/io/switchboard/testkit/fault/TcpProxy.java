package io.switchboard.testkit.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy in front of a broker port, for taking the broker "away" and bringing it
 * back without touching the broker: {@link #cut()} drops every open connection and refuses new
 * ones (connections are accepted and closed at once, as a dead peer would look);
 * {@link #restore()} forwards again. {@link #delay(Duration)} adds latency to every byte in both
 * directions (a slow network or broker, throughput unchanged); {@link #halfOpen()} stops the bytes
 * while leaving every socket open (a silent peer: no reset, no close), until {@link #restore()}.
 * Listens on 127.0.0.1 only.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5672)) {
 *     String uri = "amqp://guest:guest@127.0.0.1:" + proxy.port();
 *     proxy.cut();      // broker gone
 *     proxy.restore();  // broker back
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tcp-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean stalled;
    private volatile long delayNanos;
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    /**
     * Starts a proxy on a free loopback port forwarding to {@code host:port}.
     *
     * @param host the host to forward to
     * @param port the port to forward to
     * @return the running proxy
     */
    public static TcpProxy start(String host, int port) {
        try {
            return new TcpProxy(host, port);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot open a loopback port for a proxy to " + host + ":" + port, e);
        }
    }

    /** {@return the port clients should connect to} */
    public int port() {
        return server.getLocalPort();
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
        log.info("Proxy :{} -> {}:{} cut", port(), targetHost, targetPort);
    }

    /** Forwards again: new connections are accepted, stalled bytes flow, any delay stays as set. */
    public void restore() {
        cut = false;
        stalled = false;
        log.info("Proxy :{} -> {}:{} restored", port(), targetHost, targetPort);
    }

    /**
     * Delays every chunk of bytes by {@code latency} in each direction (zero removes the delay).
     *
     * @param latency the delay each way
     */
    public void delay(Duration latency) {
        delayNanos = latency.toNanos();
        log.info("Proxy :{} -> {}:{} delays bytes by {}", port(), targetHost, targetPort, latency);
    }

    /** Stops forwarding bytes while keeping every socket open, until {@link #restore()}. */
    public void halfOpen() {
        stalled = true;
        log.info("Proxy :{} -> {}:{} half-open: sockets stay open, bytes stop", port(), targetHost, targetPort);
    }

    /** {@return true while cut} */
    public boolean isCut() {
        return cut;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("Proxy accept failed", e);
                }
                return;
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5000);
                open.add(client);
                open.add(upstream);
                java.util.concurrent.atomic.AtomicInteger directions = new java.util.concurrent.atomic.AtomicInteger(2);
                threads.execute(() -> pump(client, upstream, directions));
                threads.execute(() -> pump(upstream, client, directions));
            } catch (IOException e) {
                log.warn("Proxy cannot reach {}:{}: {}", targetHost, targetPort, e.toString());
                closeQuietly(client);
            }
        }
    }

    /** A chunk of bytes read at some time, to be written {@link #delayNanos} later. */
    private record Chunk(byte[] bytes, long dueNanos) {}

    private static final Chunk END = new Chunk(new byte[0], 0);

    /**
     * Copies one direction: this thread reads, a writer thread writes each chunk when it is due and
     * while the proxy is not half-open. Passes a half-close on, and closes both sockets when both
     * directions ended.
     */
    private void pump(Socket from, Socket to, java.util.concurrent.atomic.AtomicInteger directions) {
        byte[] buffer = new byte[16 * 1024];
        boolean clean = false;
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        Future<?> writer = threads.submit(() -> write(to, queue));
        try {
            InputStream in = from.getInputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                queue.put(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
            }
            queue.put(END);
            writer.get();
            to.shutdownOutput();
            clean = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.debug("Proxy writer ended: {}", e.getCause().toString());
        } catch (SocketException ignored) {
            // closed by cut() or by the peer
        } catch (IOException e) {
            log.debug("Proxy stream ended: {}", e.toString());
        } finally {
            writer.cancel(true);
            if (!clean || directions.decrementAndGet() == 0) {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }
    }

    private Void write(Socket to, BlockingQueue<Chunk> queue) throws IOException, InterruptedException {
        OutputStream out = to.getOutputStream();
        while (true) {
            Chunk c = queue.take();
            if (c == END) {
                return null;
            }
            long wait;
            while ((wait = c.dueNanos() - System.nanoTime()) > 0 || stalled) {
                Thread.sleep(stalled ? 10 : Math.max(1, wait / 1_000_000), 0);
            }
            out.write(c.bytes());
            out.flush();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Stops listening and drops every connection. Idempotent. */
    @Override
    public void close() {
        closed = true;
        cut();
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        threads.shutdownNow();
    }
}
