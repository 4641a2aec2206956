/** Values that name aggregates and identify aggregate instances. */
@NullMarked
package dev.lanes.api;

import org.jspecify.annotations.NullMarked;
