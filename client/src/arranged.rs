//! Challenges and tournaments: the `LadderService` calls that arrange games for named
//! players, and the `Offers` stream that tells a player of them.

use theboss::v1::{self, ladder_service_client::LadderServiceClient};
use tonic::Streaming;

use crate::{ClientError, Session};

impl Session {
    /// Challenges players (ids) as the request says.
    pub async fn challenge(
        &self,
        message: v1::ChallengeRequest,
    ) -> Result<v1::Challenge, ClientError> {
        let response = self
            .call("Challenge", false, |channel| {
                let request = self.request(message.clone());
                async move { LadderServiceClient::new(channel).challenge(request).await }
            })
            .await?;
        response
            .challenge
            .ok_or_else(|| ClientError::Protocol("Challenge answered without its challenge".into()))
    }

    /// Accepts or declines a challenge (the challenger declining withdraws it).
    pub async fn answer_challenge(
        &self,
        challenge_id: &str,
        accept: bool,
    ) -> Result<v1::Challenge, ClientError> {
        let message = v1::AnswerChallengeRequest {
            challenge_id: challenge_id.to_string(),
            accept,
        };
        let response = self
            .call("AnswerChallenge", true, |channel| {
                let request = self.request(message.clone());
                async move {
                    LadderServiceClient::new(channel)
                        .answer_challenge(request)
                        .await
                }
            })
            .await?;
        response.challenge.ok_or_else(|| {
            ClientError::Protocol("AnswerChallenge answered without its challenge".into())
        })
    }

    /// Who may challenge this player; returns the policy now in force.
    pub async fn set_challenge_policy(
        &self,
        policy: v1::ChallengePolicy,
    ) -> Result<v1::ChallengePolicy, ClientError> {
        let message = v1::SetChallengePolicyRequest {
            policy: policy as i32,
        };
        let response = self
            .call("SetChallengePolicy", true, |channel| {
                let request = self.request(message);
                async move {
                    LadderServiceClient::new(channel)
                        .set_challenge_policy(request)
                        .await
                }
            })
            .await?;
        Ok(v1::ChallengePolicy::try_from(response.policy).unwrap_or_default())
    }

    /// The `Offers` stream: challenges made to or by this player, and the games they and
    /// tournaments seat it in.
    pub async fn offers(&self) -> Result<Streaming<v1::OffersResponse>, ClientError> {
        self.call("Offers", true, |channel| {
            let request = self.stream_request(v1::OffersRequest {});
            async move { LadderServiceClient::new(channel).offers(request).await }
        })
        .await
    }

    pub async fn create_tournament(
        &self,
        message: v1::CreateTournamentRequest,
    ) -> Result<v1::Tournament, ClientError> {
        let response = self
            .call("CreateTournament", false, |channel| {
                let request = self.request(message.clone());
                async move {
                    LadderServiceClient::new(channel)
                        .create_tournament(request)
                        .await
                }
            })
            .await?;
        response.tournament.ok_or_else(|| {
            ClientError::Protocol("CreateTournament answered without its tournament".into())
        })
    }

    /// Enters a tournament, or leaves it (`leave`).
    pub async fn enter_tournament(
        &self,
        tournament_id: &str,
        leave: bool,
    ) -> Result<v1::Tournament, ClientError> {
        let message = v1::EnterTournamentRequest {
            tournament_id: tournament_id.to_string(),
            leave,
        };
        let response = self
            .call("EnterTournament", true, |channel| {
                let request = self.request(message.clone());
                async move {
                    LadderServiceClient::new(channel)
                        .enter_tournament(request)
                        .await
                }
            })
            .await?;
        response.tournament.ok_or_else(|| {
            ClientError::Protocol("EnterTournament answered without its tournament".into())
        })
    }

    pub async fn start_tournament(
        &self,
        tournament_id: &str,
    ) -> Result<v1::Tournament, ClientError> {
        let message = v1::StartTournamentRequest {
            tournament_id: tournament_id.to_string(),
        };
        let response = self
            .call("StartTournament", false, |channel| {
                let request = self.request(message.clone());
                async move {
                    LadderServiceClient::new(channel)
                        .start_tournament(request)
                        .await
                }
            })
            .await?;
        response.tournament.ok_or_else(|| {
            ClientError::Protocol("StartTournament answered without its tournament".into())
        })
    }

    /// A tournament with its standings, crosstable and games being played.
    pub async fn tournament(
        &self,
        tournament_id: &str,
    ) -> Result<v1::GetTournamentResponse, ClientError> {
        let message = v1::GetTournamentRequest {
            tournament_id: tournament_id.to_string(),
        };
        self.call("GetTournament", true, |channel| {
            let request = self.request(message.clone());
            async move {
                LadderServiceClient::new(channel)
                    .get_tournament(request)
                    .await
            }
        })
        .await
    }

    pub async fn tournaments(
        &self,
        status: v1::TournamentStatus,
        page_size: u32,
    ) -> Result<Vec<v1::Tournament>, ClientError> {
        let message = v1::ListTournamentsRequest {
            status: status as i32,
            page_size,
        };
        let response = self
            .call("ListTournaments", true, |channel| {
                let request = self.request(message);
                async move {
                    LadderServiceClient::new(channel)
                        .list_tournaments(request)
                        .await
                }
            })
            .await?;
        Ok(response.tournaments)
    }
}
