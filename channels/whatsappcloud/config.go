package whatsappcloud

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
)

// Config is the channels.whatsapp_cloud section of the gateway config
// (docs/whatsapp-cloud.md).
type Config struct {
	// PhoneNumberID is the Cloud API's id of the business number (not the
	// number itself): Meta's dashboard, WhatsApp → API Setup.
	PhoneNumberID string `yaml:"phone_number_id"`
	// AccessToken is a system user's token with whatsapp_business_messaging.
	AccessToken string `yaml:"access_token"`
	// AppSecret keys X-Hub-Signature-256 on every webhook body.
	AppSecret string `yaml:"app_secret"`
	// VerifyToken is what Meta sends back in the subscription handshake.
	VerifyToken string `yaml:"verify_token"`
	// APIURL is the Graph API base with its version; empty: DefaultAPIURL.
	APIURL string `yaml:"api_url"`
	// RatePerSecond is this number's sends a second, shared by every
	// replica (default 20).
	RatePerSecond float64 `yaml:"rate_per_second"`
	// Template is what a proactive message outside the 24-hour window is
	// sent as; unset, such a message becomes a dead letter.
	Template *Template `yaml:"template"`
}

// Template is an approved message template with one body parameter.
type Template struct {
	Name     string `yaml:"name"`
	Language string `yaml:"language"`
}

// DefaultAPIURL is the Graph API the channel calls when api_url is empty.
const DefaultAPIURL = "https://graph.facebook.com/v23.0"

const defaultRate = 20.0

var digits = regexp.MustCompile(`^[0-9]{1,32}$`)

// Validate reports every problem of c, each prefixed with its key path.
func (c Config) Validate() error {
	const p = "channels.whatsapp_cloud."
	var errs []error
	required := func(key, v string) {
		if v == "" {
			errs = append(errs, errors.New(p+key+": required"))
		}
	}
	required("phone_number_id", c.PhoneNumberID)
	if c.PhoneNumberID != "" && !digits.MatchString(c.PhoneNumberID) {
		errs = append(errs, errors.New(p+"phone_number_id: want the number's id from Meta's dashboard, digits only"))
	}
	required("access_token", c.AccessToken)
	required("app_secret", c.AppSecret)
	required("verify_token", c.VerifyToken)
	if c.APIURL != "" {
		if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf(p+"api_url: %q: want an http(s) URL", c.APIURL))
		}
	}
	if c.RatePerSecond < 0 {
		errs = append(errs, errors.New(p+"rate_per_second: must not be negative"))
	}
	if t := c.Template; t != nil {
		required("template.name", t.Name)
		required("template.language", t.Language)
	}
	return errors.Join(errs...)
}

func (c Config) rate() float64 {
	if c.RatePerSecond == 0 {
		return defaultRate
	}
	return c.RatePerSecond
}

func (c Config) apiURL() string {
	if c.APIURL == "" {
		return DefaultAPIURL
	}
	return c.APIURL
}
