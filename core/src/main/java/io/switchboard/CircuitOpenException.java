package io.switchboard;

/**
 * Publishing was refused without calling the broker because the broker instance's circuit
 * breaker is open (or half-open and out of trial calls). The message names the instance, the
 * destination and the circuit state.
 */
public class CircuitOpenException extends PublishException {
    private static final long serialVersionUID = 1L;

    /**
     * With a message naming the instance and the state.
     *
     * @param message the detail message, naming the instance and the state
     */
    public CircuitOpenException(String message) {
        super(message);
    }
}
