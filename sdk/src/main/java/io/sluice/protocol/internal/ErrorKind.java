package io.sluice.protocol.internal;

import io.sluice.CacheNotFoundException;
import io.sluice.CacheStoreException;
import io.sluice.DataRegionFullException;
import io.sluice.IndexFieldTypeConflictException;
import io.sluice.IndexNotFoundException;
import io.sluice.IndexValueTypeException;
import io.sluice.SluiceException;
import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.BinaryTypeMismatchException;

import java.util.concurrent.RejectedExecutionException;

/**
 * What went wrong on the node, as the wire carries it (u8 kind + message), so the client can throw
 * the exception the embedded node would have thrown.
 */
public enum ErrorKind {
    INTERNAL(0),
    CACHE_NOT_FOUND(1),
    ILLEGAL_ARGUMENT(2),
    ILLEGAL_STATE(3),
    DATA_REGION_FULL(4),
    BINARY_FORMAT(5),
    TYPE_MISMATCH(6),
    /** The node is stopping (or its apply threads stopped): a client may retry elsewhere or later. */
    NODE_STOPPING(7),
    /** The request did not follow the protocol (an op the node does not know, a malformed body). */
    MALFORMED_REQUEST(8),
    NULL_ARGUMENT(9),
    /** A cache store (write-through, read-through) failed; the client throws {@code CacheStoreException}. */
    CACHE_STORE(10),
    /**
     * A cluster member does not serve the partition now (another node owns it, or none does while it moves or
     * its node is away): the client refreshes its map (CLUSTER_MAP) and sends the entries again, within its
     * request timeout.
     */
    NOT_OWNER(11),
    /**
     * A backup refused a primary's record: the partition has a newer primary (a higher epoch) than the sender. The
     * sender stops acknowledging writes to the partition and stops serving it.
     */
    STALE_EPOCH(12),
    /**
     * The member is not a caught-up follower of the sender for the partition (it does not back it, leads it, or
     * has not asked to follow): the sender stops counting it for the partition until it asks again.
     */
    NOT_FOLLOWING(13),
    /** A query or destroyIndex names fields no index of the cache has ({@code IndexNotFoundException}). */
    UNKNOWN_INDEX(14),
    /** A query's value is not of the indexed field's type ({@code IndexValueTypeException}). */
    INDEX_VALUE_TYPE(15),
    /** The cache's entries disagree on an indexed field's type ({@code IndexFieldTypeConflictException}). */
    FIELD_TYPE_CONFLICT(16),
    /**
     * Member to member (PARTITION_FILE): the node cannot send the partition as a file now (not a cluster member,
     * not a copy in sync when one was asked for, its image could not be written); the asker builds it another way.
     */
    MOVE_REFUSED(17);

    private static final ErrorKind[] BY_CODE = new ErrorKind[256];

    static {
        for (ErrorKind k : values()) {
            BY_CODE[k.code] = k;
        }
    }

    public final int code;

    ErrorKind(int code) {
        this.code = code;
    }

    public static ErrorKind of(int code) {
        ErrorKind k = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        return k == null ? INTERNAL : k;
    }

    /** The kind of an exception thrown on the node. */
    public static ErrorKind of(Throwable t) {
        if (t instanceof NotOwnerException) {
            return NOT_OWNER;
        } else if (t instanceof MoveRefusedException) {
            return MOVE_REFUSED;
        } else if (t instanceof StaleEpochException) {
            return STALE_EPOCH;
        } else if (t instanceof NotFollowingException) {
            return NOT_FOLLOWING;
        } else if (t instanceof IndexNotFoundException) {
            return UNKNOWN_INDEX;
        } else if (t instanceof IndexValueTypeException) {
            return INDEX_VALUE_TYPE;
        } else if (t instanceof IndexFieldTypeConflictException) {
            return FIELD_TYPE_CONFLICT;
        } else if (t instanceof CacheNotFoundException) {
            return CACHE_NOT_FOUND;
        } else if (t instanceof CacheStoreException) {
            return CACHE_STORE;
        } else if (t instanceof DataRegionFullException) {
            return DATA_REGION_FULL;
        } else if (t instanceof BinaryTypeMismatchException) {
            return TYPE_MISMATCH;
        } else if (t instanceof BinaryFormatException || t instanceof EntryBatch.CorruptBatchException) {
            return BINARY_FORMAT;
        } else if (t instanceof RejectedExecutionException) {
            return NODE_STOPPING;
        } else if (t instanceof Wire.MalformedFrameException) {
            return MALFORMED_REQUEST;
        } else if (t instanceof NullPointerException) {
            return NULL_ARGUMENT;
        } else if (t instanceof IllegalArgumentException) {
            return ILLEGAL_ARGUMENT;
        } else if (t instanceof IllegalStateException) {
            return ILLEGAL_STATE;
        }
        return INTERNAL;
    }

    /**
     * The exception a client throws for an error of this kind that the node reported.
     *
     * @param cacheName the cache the request named, or null
     */
    public RuntimeException toException(String message, String cacheName) {
        return switch (this) {
            case CACHE_NOT_FOUND -> cacheName != null ? new CacheNotFoundException(cacheName)
                    : new SluiceException(message);
            case DATA_REGION_FULL -> new DataRegionFullException(message);
            case CACHE_STORE -> new CacheStoreException(message);
            case BINARY_FORMAT -> new BinaryFormatException(message);
            case ILLEGAL_ARGUMENT, MALFORMED_REQUEST -> new IllegalArgumentException(message);
            case ILLEGAL_STATE -> new IllegalStateException(message);
            case NULL_ARGUMENT -> new NullPointerException(message);
            case NODE_STOPPING -> new RejectedExecutionException(message);
            case NOT_OWNER -> new NotOwnerException(message);
            case STALE_EPOCH -> new StaleEpochException(message);
            case NOT_FOLLOWING -> new NotFollowingException(message);
            case UNKNOWN_INDEX -> new IndexNotFoundException(message);
            case INDEX_VALUE_TYPE -> new IndexValueTypeException(message);
            case FIELD_TYPE_CONFLICT -> new IndexFieldTypeConflictException(message);
            case MOVE_REFUSED -> new MoveRefusedException(message);
            case TYPE_MISMATCH -> new SluiceException("binary type mismatch on the node: " + message);
            default -> new SluiceException("the node failed: " + message);
        };
    }

    /** A message for the wire: the exception's own, or its class if it has none. */
    public static String messageOf(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getName() : m;
    }
}
