package io.switchboard.spring;

import java.util.Map;

/**
 * Turns the connection settings of one {@code switchboard.instances.<name>} block into the
 * properties of its adapter. The starter has one per adapter type, each active only when that
 * adapter's jar is on the classpath; a third-party adapter may add its own as a bean.
 */
public interface BrokerInstanceMapper {

    /** {@return the adapter id this mapper serves, for example {@code kafka}} */
    String type();

    /**
     * Adds the instance's connection settings to {@code adapterProperties}, which already holds the
     * instance's {@code properties} map (prefixed with the type), and checks that what the adapter
     * needs is there.
     *
     * @param instanceName the instance name, for error messages: {@code switchboard.instances.<name>.*}
     * @param instance the bound settings
     * @param adapterProperties the adapter properties so far; add to it
     * @throws InvalidSwitchboardPropertyException naming the property, the value and the fix
     */
    void contribute(String instanceName, InstanceProperties instance, Map<String, String> adapterProperties);
}
