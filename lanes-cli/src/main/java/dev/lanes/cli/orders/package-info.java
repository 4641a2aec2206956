/** {@code lanes demo --scenario orders}: the order-fulfilment process under concurrent clients, then its audit. */
@NullMarked
package dev.lanes.cli.orders;

import org.jspecify.annotations.NullMarked;
