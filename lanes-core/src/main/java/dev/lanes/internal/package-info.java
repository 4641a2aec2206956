/**
 * Argument checks shared by every package.
 *
 * <p><b>Not an API.</b> {@code dev.lanes.internal} and its subpackages are public only because several Lanes packages
 * share them; only Lanes' own packages may use them (marked {@link dev.lanes.internal.Internal}, checked by {@code ArchitectureTest}), and they may change or
 * disappear in any release without notice.
 */
@Internal
@NullMarked
package dev.lanes.internal;

import org.jspecify.annotations.NullMarked;
