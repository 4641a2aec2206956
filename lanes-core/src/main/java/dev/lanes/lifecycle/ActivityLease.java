package dev.lanes.lifecycle;

/**
 * One admitted unit of work (an exchange from intake to acknowledgement). The runtime counts open leases to know when
 * admitted work has drained. {@link #close()} is idempotent and never throws.
 */
public interface ActivityLease extends AutoCloseable {

    /** A lease that counts nothing, for components running outside a runtime. */
    ActivityLease NONE = () -> {};

    @Override
    void close();
}
