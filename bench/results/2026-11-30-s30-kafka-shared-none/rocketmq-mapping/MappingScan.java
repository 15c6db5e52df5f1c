import java.lang.reflect.Method;
import java.util.Map;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;

/** ns a message of the RocketMQ adapter's MessageMapping.headers on messages whose properties RocketMQ's decoder made. */
public class MappingScan {
    public static void main(String[] args) throws Exception {
        Method headers = Class.forName("io.switchboard.rocketmq.internal.mapping.MessageMapping").getMethod("headers", Message.class);
        String props = "UNIQ_KEY\u0001AC11000100002A9F0000000000000001\u0002KEYS\u0001key-17\u0002WAIT\u0001true\u0002"
                + "MIN_OFFSET\u00010\u0002MAX_OFFSET\u0001123456\u0002";
        int n = 20_000;
        Message[] messages = new Message[n];
        long sink = 0;
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < n; i++) {
                Message m = new Message();
                org.apache.rocketmq.common.message.MessageAccessor.setProperties(m, MessageDecoder.string2messageProperties(props));
                messages[i] = m;
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += ((Map<?, ?>) headers.invoke(null, messages[i])).size();
            }
            long t1 = System.nanoTime();
            if (round >= 20) System.out.printf("%.1f ns a message%n", (t1 - t0) / (double) n);
        }
        System.out.println(sink);
    }
}
