package zones

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Subject is the NATS subject the zones' frames travel on.
const Subject = "zones.frames"

// Bus is one zone's link to the others: its own NATS connection.
type Bus struct {
	nc      *nats.Conn
	sub     *nats.Subscription
	in      chan *nats.Msg
	zone    int
	zones   int
	pending map[int][]Frame // frames of ticks this zone has not reached yet
	ready   map[int]bool
}

// Connect joins the bus at url as zone index of zones.
func Connect(url string, index, zones int) (*Bus, error) {
	nc, err := nats.Connect(url, nats.Name(fmt.Sprintf("zone %d", index)))
	if err != nil {
		return nil, err
	}
	b := &Bus{nc: nc, in: make(chan *nats.Msg, 1024), zone: index, zones: zones, pending: map[int][]Frame{}, ready: map[int]bool{}}
	if b.sub, err = nc.ChanSubscribe(Subject, b.in); err != nil {
		nc.Close()
		return nil, err
	}
	return b, nil
}

// Close leaves the bus.
func (b *Bus) Close() { b.nc.Close() }

func (b *Bus) publish(f Frame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return b.nc.Publish(Subject, data)
}

// next is the next frame from another zone.
func (b *Bus) next(ctx context.Context) (Frame, error) {
	for {
		select {
		case <-ctx.Done():
			return Frame{}, context.Cause(ctx)
		case m := <-b.in:
			var f Frame
			if err := json.Unmarshal(m.Data, &f); err != nil {
				return Frame{}, fmt.Errorf("zone %d: a bad frame: %w", b.zone, err)
			}
			if f.Zone != b.zone {
				return f, nil
			}
		}
	}
}

// Ready waits until every zone is on the bus: each publishes a frame of
// tick 0 and publishes it again when it first hears from another zone, so
// a zone that subscribed late still hears from those before it.
func (b *Bus) Ready(ctx context.Context) error {
	if err := b.publish(Frame{Zone: b.zone}); err != nil {
		return err
	}
	for len(b.ready) < b.zones-1 {
		f, err := b.next(ctx)
		if err != nil {
			return err
		}
		if f.Tick != 0 {
			b.pending[f.Tick] = append(b.pending[f.Tick], f)
			b.ready[f.Zone] = true // it is past tick 0: it heard from us
			continue
		}
		if !b.ready[f.Zone] {
			b.ready[f.Zone] = true
			if err := b.publish(Frame{Zone: b.zone}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Exchange publishes this zone's frame of a tick and returns the frames
// of every zone for that tick, its own included.
func (b *Bus) Exchange(ctx context.Context, f Frame) ([]Frame, error) {
	if err := b.publish(f); err != nil {
		return nil, err
	}
	got := append(b.pending[f.Tick], f)
	delete(b.pending, f.Tick)
	for len(got) < b.zones {
		o, err := b.next(ctx)
		if err != nil {
			return nil, err
		}
		switch {
		case o.Tick == f.Tick:
			got = append(got, o)
		case o.Tick > f.Tick:
			b.pending[o.Tick] = append(b.pending[o.Tick], o)
		}
		// A frame of tick 0 is a late hello: every zone is ready already.
	}
	return got, nil
}

// RunZone runs zone index of w over the bus at url, in step with the
// other zones, and returns its part of the result.
func RunZone(ctx context.Context, w World, index int, url string) (Result, error) {
	b, err := Connect(url, index, w.Zones)
	if err != nil {
		return Result{}, err
	}
	defer b.Close()
	z, err := NewZone(w, index)
	if err != nil {
		return Result{}, err
	}
	defer z.Host.Close()
	if err := b.Ready(ctx); err != nil {
		return Result{}, err
	}
	for t := 1; t <= w.Ticks; t++ {
		f, err := z.Tick(t)
		if err != nil {
			return Result{}, err
		}
		frames, err := b.Exchange(ctx, f)
		if err != nil {
			return Result{}, err
		}
		if err := z.Receive(frames); err != nil {
			return Result{}, err
		}
	}
	return z.Result()
}
