package io.switchboard.rabbit;

import static io.switchboard.testkit.TestSecrets.allMessages;
import static io.switchboard.testkit.TestSecrets.randomPassword;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.rabbitmq.client.AuthenticationFailureException;
import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Publisher;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardException;
import io.switchboard.testkit.RoundTrip;
import io.switchboard.testkit.rabbit.RabbitMqServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The adapter with a user of its own (not guest) on a vhost of its own, both created for this class
 * with {@code rabbitmqctl} and deleted after it; and the errors a wrong password, a user without
 * access to the vhost and a user without the right to declare get.
 */
@DisplayName("RabbitMQ with its own user and virtual host")
class RabbitCredentialsTest {

    private static final RabbitMqServer SERVER = RabbitMqServer.local();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Codec<String> TEXT = Codec.utf8();
    private static final String ADDRESS = SERVER.host() + ":" + SERVER.port();
    private static final String SUFFIX = UUID.randomUUID().toString().substring(0, 8);
    private static final String VHOST = "sb-creds-" + SUFFIX;
    /** Full permissions on the vhost. */
    private static final String USER = "sb-app-" + SUFFIX;
    /** No permissions on the vhost at all. */
    private static final String OUTSIDER = "sb-outsider-" + SUFFIX;
    /** May write and read on the vhost, but configure (declare) nothing. */
    private static final String RESTRICTED = "sb-restricted-" + SUFFIX;
    private static final String PASSWORD = randomPassword();
    private static final String OTHER_PASSWORD = randomPassword();

    private final List<Switchboard> switchboards = new ArrayList<>();

    @BeforeAll
    static void createVhostAndUsers() {
        SERVER.require();
        SERVER.addVirtualHost(VHOST);
        SERVER.addUser(USER, PASSWORD);
        SERVER.grantAll(VHOST, USER);
        SERVER.addUser(OUTSIDER, OTHER_PASSWORD);
        SERVER.addUser(RESTRICTED, OTHER_PASSWORD);
        SERVER.setPermissions(VHOST, RESTRICTED, "^$", ".*", ".*");
    }

    @AfterAll
    static void deleteVhostAndUsers() {
        try {
            SERVER.deleteUser(USER);
            SERVER.deleteUser(OUTSIDER);
            SERVER.deleteUser(RESTRICTED);
        } finally {
            SERVER.deleteVirtualHost(VHOST);
        }
    }

    @Test
    @DisplayName("publishes and a group receives at least once, with every queue and exchange in the user's vhost")
    void publishesAndConsumesInOwnVhost() throws Exception {
        Switchboard sb = switchboard(USER, PASSWORD);
        String destination = "creds-orders-" + SUFFIX;

        RoundTrip.Result trip = RoundTrip.run(sb, destination, "billing", Delivery.AT_LEAST_ONCE, 20, TIMEOUT);

        assertThat(trip.received()).hasSameElementsAs(trip.sent());
        assertThat(SERVER.queuesOf(VHOST)).contains(destination + ".billing");
        assertThat(SERVER.exchangesOf(VHOST)).contains(destination, destination + ".dlq");
        assertThat(SERVER.queuesOf("/")).noneMatch(name -> name.startsWith(destination));
        assertThat(SERVER.exchangesOf("/")).noneMatch(name -> name.startsWith(destination));
    }

    @Test
    @DisplayName("a wrong password fails the first publisher or subscriber with a login error naming the user, the password masked")
    void wrongPasswordIsALoginError() {
        String wrong = randomPassword();
        Switchboard sb = switchboard(USER, wrong);
        String destination = "creds-wrong-" + SUFFIX;

        Throwable onPublisher = catchThrowable(() -> sb.publisher(destination, TEXT).build());
        Throwable onSubscriber = catchThrowable(() -> sb.subscriber(destination, TEXT).group("g").subscribe((m, c) -> { }));

        for (Throwable failure : List.of(onPublisher, onSubscriber)) {
            assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                    .hasCauseInstanceOf(AuthenticationFailureException.class)
                    .hasMessageContaining("amqp://" + USER + ":******@" + ADDRESS + "/" + VHOST)
                    .hasMessageContaining("refused the login of user '" + USER + "'")
                    .hasMessageContaining("ACCESS_REFUSED")
                    .hasMessageContaining("Fix user and password in property rabbitmq.uri");
            assertThat(allMessages(failure)).doesNotContain(wrong).doesNotContain(PASSWORD);
        }
        assertThat(SERVER.exchangesOf(VHOST)).doesNotContain(destination);
    }

    @Test
    @DisplayName("a wrong password, with auto-provisioning off, fails the first publish's stage with the same login error")
    void wrongPasswordFailsFirstPublish() {
        String wrong = randomPassword();
        Switchboard sb = switchboard(USER, wrong, "switchboard.auto-provision", "false");
        Publisher<String> publisher = sb.publisher("creds-unprovisioned-" + SUFFIX, TEXT).build();

        CompletableFuture<?> stage = publisher.publish("never sent").toCompletableFuture();
        Throwable failure = catchThrowable(() -> stage.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));

        assertThat(failure).isInstanceOf(ExecutionException.class);
        assertThat(failure.getCause()).isInstanceOf(SwitchboardException.class)
                .hasMessageContaining("amqp://" + USER + ":******@" + ADDRESS + "/" + VHOST)
                .hasMessageContaining("refused the login of user '" + USER + "'")
                .hasMessageContaining("Fix user and password in property rabbitmq.uri");
        assertThat(allMessages(failure)).doesNotContain(wrong).doesNotContain(PASSWORD);
    }

    @Test
    @DisplayName("a user without permissions on the vhost is refused access to it, with the rabbitmqctl command that grants it")
    void userWithoutAccessToVhost() {
        Switchboard sb = switchboard(OUTSIDER, OTHER_PASSWORD);

        Throwable failure = catchThrowable(() -> sb.publisher("creds-outsider-" + SUFFIX, TEXT).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasMessageContaining("amqp://" + OUTSIDER + ":******@" + ADDRESS + "/" + VHOST)
                .hasMessageContaining("refused user '" + OUTSIDER + "' access to virtual host '" + VHOST + "'")
                .hasMessageContaining("NOT_ALLOWED")
                .hasMessageContaining("rabbitmqctl set_permissions -p " + VHOST + " " + OUTSIDER + " '.*' '.*' '.*'");
        assertThat(allMessages(failure)).doesNotContain(OTHER_PASSWORD);
    }

    @Test
    @DisplayName("a user who may not configure on the vhost is refused the declaration, with the permission to grant")
    void userWithoutConfigurePermission() {
        Switchboard sb = switchboard(RESTRICTED, OTHER_PASSWORD);
        String destination = "creds-restricted-" + SUFFIX;

        Throwable failure = catchThrowable(() -> sb.publisher(destination, TEXT).build());

        assertThat(failure).isExactlyInstanceOf(SwitchboardException.class)
                .hasMessageContaining("amqp://" + RESTRICTED + ":******@" + ADDRESS + "/" + VHOST)
                .hasMessageContaining("refused to declare destination '" + destination + "'")
                .hasMessageContaining("ACCESS_REFUSED")
                .hasMessageContaining("rabbitmqctl set_permissions -p <vhost> <user>");
        assertThat(allMessages(failure)).doesNotContain(OTHER_PASSWORD);
    }

    @AfterEach
    void closeSwitchboards() {
        switchboards.forEach(Switchboard::close);
    }

    /** A Switchboard (not connected yet: the adapter connects on first use); extra properties as key, value pairs. */
    private Switchboard switchboard(String user, String password, String... keyValues) {
        Switchboard.Builder builder = Switchboard.builder().broker("rabbitmq")
                .property("rabbitmq.uri", "amqp://" + user + ":" + password + "@" + ADDRESS + "/" + VHOST)
                .property("rabbitmq.connection-name", "sb-creds-" + user);
        for (int i = 0; i < keyValues.length; i += 2) {
            builder.property(keyValues[i], keyValues[i + 1]);
        }
        Switchboard sb = builder.build();
        switchboards.add(sb);
        return sb;
    }
}
