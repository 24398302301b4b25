package slack

// webhookBase is where the channel's routes are mounted.
const webhookBase = "/webhooks/slack"

// EventsPath is the Events API request URL path.
const EventsPath = webhookBase + "/events"

// InteractivityPath is the Interactivity Request URL path.
const InteractivityPath = webhookBase + "/interactivity"

// routes are the channel's webhook paths, all built here from one base so
// the routes of another bot are the same under a base of its own.
type routes struct {
	events, interactivity string
	install, oauth        string // installs by OAuth (docs/slack-app.md)
}

func routesAt(base string) routes {
	return routes{events: base + "/events", interactivity: base + "/interactivity",
		install: base + "/install", oauth: base + "/oauth"}
}
