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
	// it. Zero: Options' default (DefaultLeaseTTL).
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// Visibility is how long a chat's work mark stays hidden from other
	// replicas after it is queued or claimed. Zero: Options' default
	// (DefaultVisibility).
	Visibility time.Duration `yaml:"visibility"`
	// Sentinel finds the primary through Redis Sentinel, instead of URL or
	// Addrs; nil: not used.
	Sentinel *Sentinel `yaml:"sentinel"`
	// MinReplicas > 0 makes every write that acknowledges input, commits a
	// turn or marks a reply delivered wait (WAIT) until that many replicas
	// have it; otherwise the write counts as failed (replicas.go).
	MinReplicas int `yaml:"min_replicas"`
	// ReplicaTimeout bounds that wait. Zero: DefaultReplicaTimeout.
	ReplicaTimeout time.Duration `yaml:"replica_timeout"`
}

// Sentinel names a Sentinel-managed primary.
type Sentinel struct {
	Master string   `yaml:"master"` // the name the sentinels monitor it under
	Addrs  []string `yaml:"addrs"`  // host:port of the sentinels
	// Password is the Redis servers' password (primary and replicas).
	Password string `yaml:"password"`
	// SentinelPassword is the sentinels' own password, when they have one.
	SentinelPassword string `yaml:"sentinel_password"`
}

// Minimums of the timing knobs: a shorter lease is lost to a slow Redis
// round trip or a GC pause; a shorter visibility makes every replica claim
// every busy chat over and over.
const (
	MinLeaseTTL   = time.Second
	MinVisibility = 100 * time.Millisecond
)

// Defaults of the timing knobs. Together they bound how long a chat waits
// after its replica dies (kill -9) or Redis restarts: its lease runs out
// within DefaultLeaseTTL, and its work mark is due by then (a claim that
// finds the lease taken makes the mark due when the lease runs out), so a
// poll later another replica runs it (docs/adr/0001-recovery-bound.md).
const (
	DefaultLeaseTTL   = 5 * time.Second
	DefaultVisibility = 5 * time.Second
)

// DefaultReplicaTimeout is how long a write waits for MinReplicas replicas
// unless ReplicaTimeout says otherwise; MaxReplicaTimeout keeps the wait
// inside the client's read timeout (go-redis's default: 3 s).
const (
	DefaultReplicaTimeout = 500 * time.Millisecond
	MaxReplicaTimeout     = 2 * time.Second
)

// Options are the store timings the config sets; the other fields are zero
// (their defaults).
func (c Config) Options() Options {
	return Options{LeaseTTL: c.LeaseTTL, Visibility: c.Visibility,
		MinReplicas: c.MinReplicas, ReplicaTimeout: c.ReplicaTimeout}
}

// DefaultKeyPrefix is the key prefix when Config.KeyPrefix is empty.
const DefaultKeyPrefix = "botgw"

func (c Config) prefix() string {
	if c.KeyPrefix == "" {
		return DefaultKeyPrefix
	}
	return c.KeyPrefix
}

func (c Config) embedded() bool { return c.URL == "" && len(c.Addrs) == 0 && c.Sentinel == nil }

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
	errs = append(errs, c.validateSentinel(), c.validateReplicas())
	return errors.Join(errs...)
}

func (c Config) validateSentinel() error {
	sn := c.Sentinel
	if sn == nil {
		return nil
	}
	var errs []error
	if c.URL != "" || len(c.Addrs) > 0 {
		errs = append(errs, errors.New("redis.sentinel: set one of redis.url, redis.addrs and redis.sentinel"))
	}
	if c.Cluster {
		errs = append(errs, errors.New("redis.cluster: a Sentinel-managed Redis is not a cluster"))
	}
	if sn.Master == "" {
		errs = append(errs, errors.New("redis.sentinel.master: the name the sentinels monitor the primary under is required"))
	}
	if len(sn.Addrs) == 0 {
		errs = append(errs, errors.New("redis.sentinel.addrs: at least one sentinel (host:port) is required"))
	}
	for i, a := range sn.Addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			errs = append(errs, fmt.Errorf("redis.sentinel.addrs[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

func (c Config) validateReplicas() error {
	var errs []error
	switch {
	case c.MinReplicas < 0:
		errs = append(errs, fmt.Errorf("redis.min_replicas: %d is below 0", c.MinReplicas))
	case c.MinReplicas > 0 && c.embedded():
		errs = append(errs, errors.New("redis.min_replicas: the embedded Redis has no replicas; set redis.url or redis.sentinel"))
	}
	if c.ReplicaTimeout < 0 || c.ReplicaTimeout > MaxReplicaTimeout {
		errs = append(errs, fmt.Errorf("redis.replica_timeout: %s is outside 0..%s", c.ReplicaTimeout, MaxReplicaTimeout))
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
	case c.Sentinel != nil:
		return redis.NewFailoverClient(&redis.FailoverOptions{
			MasterName: c.Sentinel.Master, SentinelAddrs: c.Sentinel.Addrs,
			Password: c.Sentinel.Password, SentinelPassword: c.Sentinel.SentinelPassword,
			PoolSize: defaultPoolSize,
		}), nil
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
	LeaseTTL   time.Duration // a worker's hold on a chat without renewal; default DefaultLeaseTTL
	Visibility time.Duration // how long a chat's work stays hidden from other replicas; default DefaultVisibility
	DedupeTTL  time.Duration // how long inbound ids are remembered; default 24h
	MaxBatch   int           // pending entries one Begin returns at most; default 100
	// DeadLetterTTL is how long dead letters are kept; default 168h.
	DeadLetterTTL time.Duration
	// MinReplicas and ReplicaTimeout: see Config; 0 and DefaultReplicaTimeout.
	MinReplicas    int
	ReplicaTimeout time.Duration
	// Stream configures the conversation stream's records (stream.go).
	Stream StreamOptions
}

func (o Options) withDefaults() Options {
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Visibility <= 0 {
		o.Visibility = DefaultVisibility
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
	if o.ReplicaTimeout <= 0 {
		o.ReplicaTimeout = DefaultReplicaTimeout
	}
	return o
}
