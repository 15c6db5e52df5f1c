package io.switchboard.testkit.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy in front of a broker port, for taking the broker "away" and bringing it
 * back without touching the broker: {@link #cut()} drops every open connection and refuses new
 * ones (connections are accepted and closed at once, as a dead peer would look);
 * {@link #restore()} forwards again. Listens on 127.0.0.1 only.
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
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    /** Starts a proxy on a free loopback port forwarding to {@code host:port}. */
    public static TcpProxy start(String host, int port) {
        try {
            return new TcpProxy(host, port);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot open a loopback port for a proxy to " + host + ":" + port, e);
        }
    }

    /** The port clients should connect to. */
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

    /** Forwards new connections again. */
    public void restore() {
        cut = false;
        log.info("Proxy :{} -> {}:{} restored", port(), targetHost, targetPort);
    }

    /** True while cut. */
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

    /** Copies one direction; passes a half-close on, and closes both sockets when both directions ended. */
    private void pump(Socket from, Socket to, java.util.concurrent.atomic.AtomicInteger directions) {
        byte[] buffer = new byte[16 * 1024];
        boolean clean = false;
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
            clean = true;
        } catch (SocketException ignored) {
            // closed by cut() or by the peer
        } catch (IOException e) {
            log.debug("Proxy stream ended: {}", e.toString());
        } finally {
            if (!clean || directions.decrementAndGet() == 0) {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
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
