/** Argument checks shared by every package. Not an API: may change without notice. */
@NullMarked
package dev.lanes.internal;

import org.jspecify.annotations.NullMarked;
