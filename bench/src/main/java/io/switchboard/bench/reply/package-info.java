/** Request/reply under load: Switchboard's {@code Requester} against each broker's own request/reply. */
package io.switchboard.bench.reply;
