package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadTopic returns the values of every record in topic, from the start of
// each partition to its end when the call began, in each partition's order
// (a conversation's records share a partition: docs/stream.md). With key
// set, only records with that key (a conversation_id) are returned. It
// joins no consumer group and commits nothing. It blocks until it has read
// up to the ends or ctx ends.
func ReadTopic(ctx context.Context, brokers []string, topic, key string, extra ...kgo.Opt) ([][]byte, error) {
	meta, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka client: %w", err)
	}
	ends, err := endOffsets(ctx, meta, topic)
	meta.Close()
	if err != nil {
		return nil, err
	}
	from := map[int32]kgo.Offset{}
	for p, end := range ends {
		if end > 0 {
			from[p] = kgo.NewOffset().AtStart()
		}
	}
	if len(from) == 0 {
		return nil, nil
	}
	opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from})}, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka client: %w", err)
	}
	defer cl.Close()
	return readUntil(ctx, cl, ends, key)
}

// readUntil polls until every partition was read up to its end offset.
func readUntil(ctx context.Context, cl *kgo.Client, ends map[int32]int64, key string) ([][]byte, error) {
	var out [][]byte
	left := 0
	for _, end := range ends {
		if end > 0 {
			left++
		}
	}
	for left > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("read %d partitions to their end: %w", left, err)
		}
		for _, fe := range fs.Errors() {
			return nil, fmt.Errorf("fetch %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= ends[r.Partition] {
				return
			}
			if key == "" || string(r.Key) == key {
				out = append(out, r.Value)
			}
			if r.Offset == ends[r.Partition]-1 {
				left--
			}
		})
	}
	return out, nil
}

// endOffsets are the next offsets of topic's partitions (ListOffsets at
// "latest").
func endOffsets(ctx context.Context, cl *kgo.Client, topic string) (map[int32]int64, error) {
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("kafka metadata of %s: %w", topic, err)
	}
	if len(mresp.Topics) != 1 {
		return nil, fmt.Errorf("kafka metadata of %s: no such topic", topic)
	}
	if err := kerr.ErrorForCode(mresp.Topics[0].ErrorCode); err != nil {
		return nil, fmt.Errorf("kafka metadata of %s: %w", topic, err)
	}
	req := kmsg.NewPtrListOffsetsRequest()
	lt := kmsg.NewListOffsetsRequestTopic()
	lt.Topic = topic
	for _, p := range mresp.Topics[0].Partitions {
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Partition, lp.Timestamp = p.Partition, -1 // -1: the end
		lt.Partitions = append(lt.Partitions, lp)
	}
	req.Topics = append(req.Topics, lt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("kafka end offsets of %s: %w", topic, err)
	}
	ends := map[int32]int64{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, fmt.Errorf("kafka end offset of %s/%d: %w", topic, p.Partition, err)
			}
			ends[p.Partition] = p.Offset
		}
	}
	if len(ends) == 0 {
		return nil, errors.New("kafka end offsets of " + topic + ": no partitions")
	}
	return ends, nil
}
