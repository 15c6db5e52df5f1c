/**
 * Spring AOT and native-image support: runtime hints for what Switchboard finds by reflection or
 * {@link java.util.ServiceLoader} at run time.
 */
package io.switchboard.spring.aot;
