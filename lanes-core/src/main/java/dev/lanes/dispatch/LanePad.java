package dev.lanes.dispatch;

/**
 * 64 bytes between a lane's producer fields ({@link LaneStage}) and its owner's ({@link Lane}): superclass fields are
 * laid out first, so the two sets never share a cache line, whatever the object's alignment.
 */
@SuppressWarnings("unused") // padding
abstract class LanePad<M> extends LaneStage<M> {
    long p1;
    long p2;
    long p3;
    long p4;
    long p5;
    long p6;
    long p7;
    long p8;
}
