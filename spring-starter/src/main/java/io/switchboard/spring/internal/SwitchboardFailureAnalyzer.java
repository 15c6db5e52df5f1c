package io.switchboard.spring.internal;

import io.switchboard.SwitchboardException;
import io.switchboard.spring.InvalidSwitchboardPropertyException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Explains a startup that failed on Switchboard: a wrong {@code switchboard.*} property (named,
 * with its value and the fix), or any other Switchboard error on the way (an adapter refusing a
 * setting, a listener that cannot subscribe), whose message already names the value and the fix.
 * Registered in {@code META-INF/spring.factories}.
 */
public final class SwitchboardFailureAnalyzer implements FailureAnalyzer {

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        SwitchboardException first = null;
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSwitchboardPropertyException invalid) {
                return property(invalid);
            }
            if (first == null && t instanceof SwitchboardException e) {
                first = e;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return first == null ? null : other(first);
    }

    private static FailureAnalysis property(InvalidSwitchboardPropertyException e) {
        String description = "Switchboard could not start: a property is wrong.\n\n"
                + "    Property: " + e.property() + "\n"
                + "    Value:    " + (e.value() == null ? "(not set)" : e.value()) + "\n"
                + "    Reason:   " + e.reason() + "\n";
        return new FailureAnalysis(description, e.action(), e);
    }

    private static FailureAnalysis other(SwitchboardException e) {
        return new FailureAnalysis("Switchboard could not start: " + e.getMessage(),
                "Correct the switchboard.* properties (application.yml) or the listener the message names, as it says. "
                        + "Error type: " + e.getClass().getSimpleName(), e);
    }
}
