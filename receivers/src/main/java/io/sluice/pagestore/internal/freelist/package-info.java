/**
 * Internal: the free list of a data region ({@link io.sluice.pagestore.internal.freelist.FreeList}): data pages
 * bucketed by the room they have for a new row, and a reuse bucket of empty pages. It implements the page
 * package's {@link io.sluice.pagestore.internal.page.FreePages}, through which rows and the tree take and return
 * pages, so the page package does not depend on this one. May change without notice.
 */
package io.sluice.pagestore.internal.freelist;
