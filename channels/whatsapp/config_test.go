package whatsapp

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error; none: valid
	}{
		{"sqlite absolute", Config{Store: "sqlite:///var/lib/botgw/whatsapp.db"}, nil},
		{"sqlite relative, all groups", Config{Store: "sqlite://data/wa.db", GroupTrigger: "all", LeaseTTL: 10 * time.Second, Proxy: "socks5://127.0.0.1:1080"}, nil},
		{"missing store", Config{}, []string{"channels.whatsapp.store: required"}},
		{"postgres", Config{Store: "postgres://botgw:pw@db:5432/botgw?sslmode=disable"}, nil},
		{"postgresql scheme", Config{Store: "postgresql://db/botgw"}, nil},
		{"postgres without host", Config{Store: "postgres:///botgw"}, []string{"channels.whatsapp.store: a PostgreSQL URL needs a host"}},
		{"unknown scheme", Config{Store: "/var/lib/wa.db"}, []string{"channels.whatsapp.store:", "sqlite://"}},
		{"empty sqlite path", Config{Store: "sqlite://"}, []string{"channels.whatsapp.store: sqlite:// needs a file path"}},
		{"slow number, default cold rate", Config{Store: "sqlite://wa.db", RatePerMinute: 1}, nil},
		{"budgets", Config{Store: "sqlite://wa.db", DailyCap: -1, ColdDailyCap: -2, RatePerMinute: 10, ColdRatePerMinute: 12}, []string{
			"channels.whatsapp.daily_cap: -1 is negative",
			"channels.whatsapp.cold_daily_cap: -2 is negative",
			"channels.whatsapp.cold_rate_per_minute: 12 is above rate_per_minute (10)",
		}},
		{"negative cold rate", Config{Store: "sqlite://wa.db", ColdRatePerMinute: -1}, []string{"channels.whatsapp.cold_rate_per_minute: must not be negative"}},
		{"every problem at once", Config{Store: "mysql://x", GroupTrigger: "sometimes", LeaseTTL: time.Second, Proxy: "ftp://p"}, []string{
			"channels.whatsapp.store:",
			"channels.whatsapp.group_trigger: \"sometimes\"",
			"channels.whatsapp.lease_ttl: 1s",
			"channels.whatsapp.proxy:",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "channels.whatsapp.") {
					t.Errorf("error line %q does not start with its key path", line)
				}
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{Store: "sqlite:///tmp/wa.db"}
	if c.leaseTTL() != 30*time.Second || c.groupTrigger() != TriggerMention {
		t.Errorf("defaults: lease_ttl %v, group_trigger %q; want 30s and mention", c.leaseTTL(), c.groupTrigger())
	}
	if !strings.Contains(c.sqliteDSN(), "foreign_keys(1)") {
		t.Errorf("DSN %q does not turn foreign keys on (whatsmeow refuses to migrate without)", c.sqliteDSN())
	}
}

func TestConfigYAMLKeys(t *testing.T) {
	const doc = `
store: sqlite:///var/lib/botgw/whatsapp.db
group_trigger: all
lease_ttl: 45s
proxy: socks5://127.0.0.1:1080
`
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("decode channels.whatsapp: %v", err)
	}
	want := Config{Store: "sqlite:///var/lib/botgw/whatsapp.db", GroupTrigger: "all", LeaseTTL: 45 * time.Second, Proxy: "socks5://127.0.0.1:1080"}
	if c != want {
		t.Errorf("decoded %+v, want %+v", c, want)
	}
}
