package state

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config says where the store lives. The zero value is the embedded
// in-process Redis.
type Config struct {
	// URL is redis://[user:pass@]host:port/db or rediss:// for TLS; query
	// options follow go-redis (dial_timeout, pool_size, ...). With Cluster it
	// is a cluster seed URL (more seeds as ?addr=host:port). Empty, with no
	// Addrs either, means the embedded in-process Redis.
	URL string `yaml:"url"`
	// KeyPrefix starts every key; default "botgw".
	KeyPrefix string `yaml:"key_prefix"`
	// Cluster treats URL or Addrs as a Redis Cluster.
	Cluster bool `yaml:"cluster"`
	// Addrs is an alternative to URL: host:port list; two or more mean a
	// cluster.
	Addrs []string `yaml:"addrs"`
	// LeaseTTL is how long a replica holds a chat without renewing its
	// lease: the longest a dead replica's chat waits before another takes
	// it. Zero: Options' default (30s).
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// Visibility is how long a chat's work mark stays hidden from other
	// replicas after it is queued or claimed. Zero: Options' default (15s).
	Visibility time.Duration `yaml:"visibility"`
}

// Minimums of the timing knobs: a shorter lease is lost to a slow Redis
// round trip or a GC pause; a shorter visibility makes every replica claim
// every busy chat over and over.
const (
	MinLeaseTTL   = time.Second
	MinVisibility = 100 * time.Millisecond
)

// Options are the store timings the config sets; the other fields are zero
// (their defaults).
func (c Config) Options() Options {
	return Options{LeaseTTL: c.LeaseTTL, Visibility: c.Visibility}
}

// DefaultKeyPrefix is the key prefix when Config.KeyPrefix is empty.
const DefaultKeyPrefix = "botgw"

func (c Config) prefix() string {
	if c.KeyPrefix == "" {
		return DefaultKeyPrefix
	}
	return c.KeyPrefix
}

func (c Config) embedded() bool { return c.URL == "" && len(c.Addrs) == 0 }

// Validate reports every problem, each naming its key (redis.url, ...).
func (c Config) Validate() error {
	var errs []error
	if c.URL != "" && len(c.Addrs) > 0 {
		errs = append(errs, errors.New("redis.addrs: set redis.url or redis.addrs, not both"))
	}
	if err := c.validateURL(); err != nil {
		errs = append(errs, fmt.Errorf("redis.url: %w", err))
	}
	for i, a := range c.Addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("redis.addrs[%d]: %w", i, err))
		}
	}
	if c.Cluster && c.embedded() {
		errs = append(errs, errors.New("redis.cluster: needs redis.url or redis.addrs"))
	}
	if c.LeaseTTL != 0 && c.LeaseTTL < MinLeaseTTL {
		errs = append(errs, fmt.Errorf("redis.lease_ttl: %s is below the minimum %s", c.LeaseTTL, MinLeaseTTL))
	}
	if c.Visibility != 0 && c.Visibility < MinVisibility {
		errs = append(errs, fmt.Errorf("redis.visibility: %s is below the minimum %s", c.Visibility, MinVisibility))
	}
	if strings.ContainsAny(c.KeyPrefix, "{}") {
		errs = append(errs, fmt.Errorf("redis.key_prefix: %q must not contain braces (they form the cluster hash tag)", c.KeyPrefix))
	}
	return errors.Join(errs...)
}

func (c Config) validateURL() error {
	if c.URL == "" {
		return nil
	}
	var err error
	if c.Cluster {
		_, err = redis.ParseClusterURL(c.URL)
	} else {
		_, err = redis.ParseURL(c.URL)
	}
	return err
}

// defaultPoolSize is how many connections a replica keeps to each Redis
// node unless the URL's pool_size says otherwise. A round trip holds its
// connection until the goroutine that sent it is scheduled to read the
// answer, which on a busy replica running thousands of chats takes far
// longer than Redis takes to answer; go-redis's default (10 per CPU) then
// makes turns queue for a connection while Redis idles.
const defaultPoolSize = 100

// client builds the go-redis client for a validated, non-embedded Config.
func (c Config) client() (redis.UniversalClient, error) {
	switch {
	case c.URL != "" && c.Cluster:
		o, err := redis.ParseClusterURL(c.URL)
		if err != nil {
			return nil, fmt.Errorf("redis.url: %w", err)
		}
		o.PoolSize = cmp.Or(o.PoolSize, defaultPoolSize)
		return redis.NewClusterClient(o), nil
	case c.URL != "":
		o, err := redis.ParseURL(c.URL)
		if err != nil {
			return nil, fmt.Errorf("redis.url: %w", err)
		}
		o.PoolSize = cmp.Or(o.PoolSize, defaultPoolSize)
		return redis.NewClient(o), nil
	default:
		return redis.NewUniversalClient(&redis.UniversalOptions{Addrs: c.Addrs, IsClusterMode: c.Cluster, PoolSize: defaultPoolSize}), nil
	}
}

// Options tune the store's timing. Zero fields take the defaults.
type Options struct {
	LeaseTTL   time.Duration // a worker's hold on a chat without renewal; default 30s
	Visibility time.Duration // how long a chat's work stays hidden from other replicas; default 15s
	DedupeTTL  time.Duration // how long inbound ids are remembered; default 24h
	MaxBatch   int           // pending entries one Begin returns at most; default 100
	// DeadLetterTTL is how long dead letters are kept; default 168h.
	DeadLetterTTL time.Duration
	// Stream configures the conversation stream's records (stream.go).
	Stream StreamOptions
}

func (o Options) withDefaults() Options {
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	if o.Visibility <= 0 {
		o.Visibility = 15 * time.Second
	}
	if o.DedupeTTL <= 0 {
		o.DedupeTTL = 24 * time.Hour
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 100
	}
	if o.DeadLetterTTL <= 0 {
		o.DeadLetterTTL = 7 * 24 * time.Hour
	}
	return o
}
