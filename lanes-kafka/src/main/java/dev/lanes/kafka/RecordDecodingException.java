package dev.lanes.kafka;

import dev.lanes.api.NonRecoverableException;

/** A record this bus cannot read (unknown schema version, not JSON, a payload that does not fit its type). */
public final class RecordDecodingException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    RecordDecodingException(String message) {
        super(message);
    }

    RecordDecodingException(String message, Throwable cause) {
        super(message, cause);
    }
}
