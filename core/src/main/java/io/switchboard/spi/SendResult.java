package io.switchboard.spi;

/**
 * Where the broker put a record.
 *
 * @param partition partition or queue index, or -1 when the broker does not say
 * @param offset offset or sequence within the partition, or -1 when the broker does not say
 */
public record SendResult(int partition, long offset) {

    /** The result of a send whose position the broker does not report. */
    public static final SendResult UNKNOWN = new SendResult(-1, -1);
}
