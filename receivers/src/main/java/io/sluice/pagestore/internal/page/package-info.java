/**
 * Internal: page memory and the rows in it, the bottom of the page store (it depends on no other
 * store package; the free list and the tree sit on it). In the order a row meets them:
 * <ul>
 *   <li>{@link io.sluice.pagestore.internal.page.RowStore}: a row's writes, reads, resizes and removal
 *       (one walk over its fragments); {@link io.sluice.pagestore.internal.page.RowBatchWriter}: a batch's
 *       rows packed into pages taken once;</li>
 *   <li>{@link io.sluice.pagestore.internal.page.FreePages}: where rows and trees take pages and give them
 *       back (implemented by the free list);</li>
 *   <li>{@link io.sluice.pagestore.internal.page.DataPageIO}, {@link io.sluice.pagestore.internal.page.FragmentPageIO},
 *       {@link io.sluice.pagestore.internal.page.PageHeader}: the page layouts (tables at the top of each);</li>
 *   <li>{@link io.sluice.pagestore.internal.page.PageMemory}: off-heap chunks cut into pages, per-page locks;
 *       {@link io.sluice.pagestore.internal.page.ChunkAllocator} ({@code DirectChunks}, {@code MappedChunks},
 *       {@code Cleaners}): where the chunks come from and how they are freed;</li>
 *   <li>{@link io.sluice.pagestore.internal.page.PageCheck}: the page-level half of a consistency check.</li>
 * </ul>
 * May change without notice.
 */
package io.sluice.pagestore.internal.page;
