package io.switchboard.testkit.rocketmq;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Finds the free ports a RocketMQ name server and broker need. */
final class FreePorts {

    /** Ports for one name server and broker; the broker also binds {@code broker - 2}. */
    record Reserved(int nameServer, int broker, int ha) {
        @Override
        public String toString() {
            return "name server " + nameServer + ", broker " + broker + " (and " + (broker - 2)
                    + "), HA " + ha;
        }
    }

    private static final int MAX_TRIES = 50;

    private FreePorts() {}

    /**
     * Picks ports that are free right now. The broker's port {@code P} is chosen so that
     * {@code P - 2} (RocketMQ's "fast" remoting port) is free too.
     */
    static Reserved forRocketMq() {
        int nameServer = anyFree();
        int ha = anyFree();
        for (int i = 0; i < MAX_TRIES; i++) {
            int broker = anyFree();
            if (broker - 2 > 1024 && isFree(broker - 2) && broker - 2 != nameServer && broker - 2 != ha
                    && broker != nameServer && broker != ha) {
                return new Reserved(nameServer, broker, ha);
            }
        }
        throw new IllegalStateException("Found no free port P with P-2 also free for the RocketMQ broker"
                + " after " + MAX_TRIES + " tries: free some local ports");
    }

    private static int anyFree() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("Could not find a free local port: " + e.getMessage(), e);
        }
    }

    private static boolean isFree(int port) {
        return canBind(new InetSocketAddress(port)) && canBind(new InetSocketAddress(loopback(), port));
    }

    private static boolean canBind(InetSocketAddress address) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(address);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static InetAddress loopback() {
        return InetAddress.getLoopbackAddress();
    }
}
