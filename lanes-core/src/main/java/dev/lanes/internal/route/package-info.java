/**
 * The in-memory routes behind the in-memory buses and the saga outbox: a bounded route, a route counted in a backlog,
 * and the exchange that settles back into its sender.
 *
 * <p><b>Not an API.</b> Only Lanes' own packages may use these types (marked {@link dev.lanes.internal.Internal}, checked by {@code ArchitectureTest}); they are
 * public only because several Lanes packages share them, and may change or disappear in any release.
 */
@Internal
@NullMarked
package dev.lanes.internal.route;

import dev.lanes.internal.Internal;
import org.jspecify.annotations.NullMarked;
