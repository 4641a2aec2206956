/**
 * Argument checks shared by every package.
 *
 * <p><b>Not an API.</b> {@code dev.lanes.internal} and its subpackages are public only because several Lanes packages
 * share them; only Lanes' own packages may use them (checked by {@code ArchitectureTest}), and they may change or
 * disappear in any release without notice.
 */
@NullMarked
package dev.lanes.internal;

import org.jspecify.annotations.NullMarked;
