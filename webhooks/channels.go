package webhooks

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
)

// statuser is a channel that reports a detailed state for operators (the
// WhatsApp link: linked device, connection state, ban expiry, lease).
type statuser interface{ Status() any }

// actor is a channel with operator actions, each run by
// POST /v1/admin/<channel>/<action> (WhatsApp: reconnect, lift-hold).
type actor interface {
	Actions() map[string]func(ctx context.Context) error
}

// adminRouter is a channel with admin routes of its own under
// /v1/admin/<channel>/… (Slack: its installations), behind the admin
// token; its handler sees the whole path.
type adminRouter interface{ AdminHandler() http.Handler }

// channelView is one channel as GET /v1/admin/channels shows it.
type channelView struct {
	Healthy bool   `json:"healthy"`
	Problem string `json:"problem,omitempty"`
	Status  any    `json:"status,omitempty"`
}

// WithChannels lets the admin API report the channels' state at
// GET /v1/admin/channels and GET /v1/admin/<channel> (e.g. whatsapp).
// Chats of any other channel are then 404.
func (a *Admin) WithChannels(chs []botgw.Channel) *Admin {
	a.channels, a.known = chs, true
	return a
}

func (a *Admin) mountChannels(g *echo.Group) {
	g.GET("/channels", func(c echo.Context) error {
		out := map[string]channelView{}
		for _, ch := range a.channels {
			out[ch.Name()] = viewChannel(ch)
		}
		return c.JSON(http.StatusOK, out)
	})
	for _, ch := range a.channels {
		if _, ok := ch.(statuser); ok {
			g.GET("/"+ch.Name(), func(c echo.Context) error { return c.JSON(http.StatusOK, viewChannel(ch)) })
		}
		if ac, ok := ch.(actor); ok {
			g.POST("/"+ch.Name()+"/:action", func(c echo.Context) error { return runAction(c, ch, ac) })
		}
		if ar, ok := ch.(adminRouter); ok {
			g.Any("/"+ch.Name()+"/*", echo.WrapHandler(ar.AdminHandler()))
		}
	}
}

// runAction runs one operator action of ch and answers with the channel's
// view afterwards; an unknown action is 404.
func runAction(c echo.Context, ch botgw.Channel, ac actor) error {
	name, err := pathParam(c, "action")
	act, ok := ac.Actions()[name]
	if err != nil || !ok {
		return c.JSON(http.StatusNotFound, map[string]string{"error": "action: " + ch.Name() + " has no action " + name})
	}
	if err := act(c.Request().Context()); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": name + ": " + err.Error()})
	}
	return c.JSON(http.StatusOK, viewChannel(ch))
}

func viewChannel(ch botgw.Channel) channelView {
	v := channelView{Healthy: true}
	if h, ok := ch.(botgw.Health); ok {
		if err := h.Health(); err != nil {
			v.Healthy, v.Problem = false, err.Error()
		}
	}
	if s, ok := ch.(statuser); ok {
		v.Status = s.Status()
	}
	return v
}
