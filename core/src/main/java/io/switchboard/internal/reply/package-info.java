/** Request/reply over publish and subscribe: the requester's pending replies and the responder's reply publishers. */
package io.switchboard.internal.reply;
