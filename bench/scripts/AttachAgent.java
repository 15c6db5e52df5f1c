import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a native agent into a running JVM, passing its option string whole (jcmd's JVMTI.agent_load splits it at '=').
 *
 *   java bench/scripts/AttachAgent.java PID /path/to/libasyncProfiler.so start,event=cpu,interval=2ms,threads
 */
public class AttachAgent {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: java AttachAgent.java PID AGENT_LIBRARY OPTIONS");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        try {
            vm.loadAgentPath(args[1], args[2]);
        } finally {
            vm.detach();
        }
    }
}
