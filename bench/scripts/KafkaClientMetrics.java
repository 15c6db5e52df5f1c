import com.sun.tools.attach.VirtualMachine;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Prints the batching figures of every kafka-clients producer and consumer in a running JVM (their JMX metrics), summed
 * over the clients for rates and averaged over them for averages: what a produce or fetch request carries, how often
 * they go, how long records wait. Compares two bench modes run one JVM each at the same point. In a broker's JVM (the
 * bench's Kafka child) it prints the broker's counts instead: requests by type ({@code RequestsPerSec}'s {@code Count},
 * summed over versions), messages and bytes in and out, produce and fetch requests; two readings give the rates.
 *
 *   java bench/scripts/KafkaClientMetrics.java PID
 */
public class KafkaClientMetrics {

    /** Producer figures (kafka.producer:type=producer-metrics). */
    private static final String[] PRODUCER = {"record-send-rate", "request-rate", "records-per-request-avg",
            "batch-size-avg", "record-queue-time-avg", "request-latency-avg", "bufferpool-wait-ratio", "io-ratio",
            "outgoing-byte-rate", "requests-in-flight", "record-size-avg", "select-rate", "io-wait-ratio", "batch-size-max",
            "record-queue-time-max", "request-size-avg", "request-total", "record-send-total"};
    /** Consumer figures (fetch manager, coordinator and network). */
    private static final Map<String, String[]> CONSUMER = Map.of(
            "consumer-fetch-manager-metrics", new String[] {"fetch-rate", "records-per-request-avg", "fetch-size-avg",
                    "records-consumed-rate", "fetch-latency-avg", "bytes-consumed-rate", "fetch-total",
                    "records-consumed-total"},
            "consumer-coordinator-metrics", new String[] {"commit-rate", "commit-latency-avg"},
            "consumer-metrics", new String[] {"request-rate", "io-ratio", "network-io-rate", "select-rate", "io-wait-ratio",
                    "poll-idle-ratio-avg", "time-between-poll-avg"});

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java KafkaClientMetrics.java PID");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            Map<String, double[]> figures = new TreeMap<>();
            collect(server, "kafka.producer:type=producer-metrics,client-id=*", "producer", PRODUCER, figures);
            for (Map.Entry<String, String[]> group : CONSUMER.entrySet()) {
                collect(server, "kafka.consumer:type=" + group.getKey() + ",client-id=*", "consumer", group.getValue(),
                        figures);
            }
            for (ObjectName name : server.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
                add(figures, "broker requests " + name.getKeyProperty("request") + " Count", server.getAttribute(name, "Count"));
            }
            for (String meter : new String[] {"MessagesInPerSec", "BytesInPerSec", "BytesOutPerSec", "TotalProduceRequestsPerSec",
                    "TotalFetchRequestsPerSec"}) {
                for (ObjectName name : server.queryNames(new ObjectName("kafka.server:type=BrokerTopicMetrics,name=" + meter), null)) {
                    add(figures, "broker all-topics " + meter + " Count", server.getAttribute(name, "Count"));
                }
            }
            System.out.printf("%-48s %d%n", "read-at-epoch-ms", System.currentTimeMillis());
            figures.forEach((name, f) -> System.out.printf("%-48s clients %4d  sum %14.2f  mean %12.3f%n", name,
                    (int) f[1], f[0], f[1] == 0 ? 0 : f[0] / f[1]));
        }
    }

    private static void collect(MBeanServerConnection server, String pattern, String side, String[] attributes,
            Map<String, double[]> figures) throws Exception {
        Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
        for (ObjectName name : names) {
            for (String attribute : attributes) {
                Object value;
                try {
                    value = server.getAttribute(name, attribute);
                } catch (Exception e) {
                    continue; // not every client has every figure
                }
                add(figures, side + " " + name.getKeyProperty("type") + " " + attribute, value);
            }
        }
    }

    private static void add(Map<String, double[]> figures, String key, Object value) {
        if (value instanceof Number n && !Double.isNaN(n.doubleValue()) && !Double.isInfinite(n.doubleValue())) {
            double[] f = figures.computeIfAbsent(key, k -> new double[2]);
            f[0] += n.doubleValue();
            f[1]++;
        }
    }
}
