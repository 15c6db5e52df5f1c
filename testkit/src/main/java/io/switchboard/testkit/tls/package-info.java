/**
 * TLS material generated at test time: {@link io.switchboard.testkit.tls.TestCertificates}.
 */
package io.switchboard.testkit.tls;
