/**
 * Binary objects: self-describing byte arrays whose fields read without deserializing the rest,
 * written directly by {@link io.sluice.binary.BinaryObjectBuilder}. The byte layout is in
 * {@code docs/binary-format.md}.
 */
package io.sluice.binary;
