package io.switchboard.spi;

import io.switchboard.ConfigurationException;
import java.util.regex.Pattern;
import org.slf4j.Logger;

/** What every adapter's {@link ControlSupport} does the same way: checking names, calling leadership listeners. */
public final class ControlNames {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

    private ControlNames() {}

    /**
     * {@return {@code name}, when it is a valid control log or leadership name on every broker}
     *
     * @param name the name to check
     * @param what "log" or "leadership", for the message
     * @throws ConfigurationException naming the value and the rule
     */
    public static String check(String name, String what) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ConfigurationException("The control " + what + " name '" + name + "' is not valid: use 1 to 100 "
                    + "letters, digits, '_' or '-'");
        }
        return name;
    }

    /**
     * Calls a {@link Leadership.Listener} method, logging (never throwing) what it throws.
     *
     * @param callback the listener method to call
     * @param log the adapter's logger
     * @param leadership the leadership's name, for the log
     * @param what the method's name, for the log
     */
    public static void call(Runnable callback, Logger log, String leadership, String what) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.error("Leadership '{}': the listener failed in {}()", leadership, what, e);
        }
    }
}
