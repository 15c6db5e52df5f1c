package io.switchboard.testkit.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class TcpProxyTest {

    /** An echo server on loopback; pure logic, no broker. */
    private static ServerSocket echo() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        CompletableFuture.runAsync(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    CompletableFuture.runAsync(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            in.transferTo(out);
                        } catch (IOException ignored) {
                            // client went away
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
        return server;
    }

    private static String roundTrip(int port, String text) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(text.getBytes());
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes());
        }
    }

    @Test
    void forwardsCutsAndRestores() throws Exception {
        try (ServerSocket server = echo(); TcpProxy proxy = TcpProxy.start("127.0.0.1", server.getLocalPort())) {
            assertThat(roundTrip(proxy.port(), "hello")).isEqualTo("hello");

            Socket held = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
            held.setSoTimeout(5000);
            held.getOutputStream().write('x');
            assertThat(held.getInputStream().read()).isEqualTo('x');
            proxy.cut();
            assertThat(held.getInputStream().read()).as("an open connection is dropped").isEqualTo(-1);
            held.close();
            assertThatThrownBy(() -> {
                String echoed = roundTrip(proxy.port(), "lost");
                if (echoed.isEmpty()) {
                    throw new IOException("closed at once");
                }
            }).isInstanceOf(IOException.class);

            proxy.restore();
            assertThat(roundTrip(proxy.port(), "back")).isEqualTo("back");
        }
    }
}
